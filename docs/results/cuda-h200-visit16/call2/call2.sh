set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
for e in 10; do EC_EXP=$e timeout 60 $A/test_engine_cuda_exp --gtest_brief=1 > $OUT/r/tests-$e.log 2>&1; echo "tests exp=$e rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests-$e.log | head -6; done
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-100)}'; }
run() { # tag binary exp tune models formats limit
  EC_CUDA_TUNE=$4 EC_EXP=$3 timeout $7 $A/bench_decode_$2 --models $5 --formats $6 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
S=qwen2-0.5b; F=fp16,int8-wo,nf4
i=0
for v in base:0 exp:10 exp:2 exp:8 base:0 exp:10 exp:2 exp:8 base:0 exp:10; do i=$((i+1)); run u$i-${v%:*}${v#*:} ${v%:*} ${v#*:} 0 $S $F 40; done
for v in base:0 exp:10 base:0 exp:10; do i=$((i+1)); run t$i-${v%:*}${v#*:} ${v%:*} ${v#*:} 1 $S $F 50; done
L=qwen2-7b; G=fp16,int8-wo
for v in base:0 exp:10 base:0 exp:10; do i=$((i+1)); run lu$i-${v%:*}${v#*:} ${v%:*} ${v#*:} 0 $L $G 60; done
run lt-exp10 exp 10 1 $L $G 80
cp build/s13/call2.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
