set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
for e in 0 3 4; do EC_EXP=$e timeout 60 $A/test_engine_cuda_exp --gtest_brief=1 > $OUT/r/tests-$e.log 2>&1; echo "tests exp=$e rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests-$e.log | head -6; done
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-110)}'; }
run() { # tag binary exp models formats limit
  EC_EXP=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; grep "copy ceiling" $OUT/r/d-$1.md | head -1; show $OUT/r/d-$1.md; }
S=qwen2-0.5b; F=fp16,int8-wo,nf4
run s-base1 base 0 $S $F 60
run s-e0 exp 0 $S $F 60
run s-e1 exp 1 $S $F 60
run s-e2 exp 2 $S $F 60
run s-e3 exp 3 $S $F 60
run s-e4 exp 4 $S $F 60
run s-e3b exp 3 $S $F 60
run s-base2 base 0 $S $F 60
L=qwen2-7b; G=fp16,int8-wo
run l-base1 base 0 $L $G 80
run l-e3 exp 3 $L $G 80
run l-e1 exp 1 $L $G 80
cp build/s13/call1.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
