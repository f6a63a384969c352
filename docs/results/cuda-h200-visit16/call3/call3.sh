set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 60 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -6
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-100)}'; }
run() { # tag binary tune models formats limit
  EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
S=qwen2-0.5b; F=fp16,int8-wo,nf4
i=0
for b in base new base new; do i=$((i+1)); run su$i-$b $b 0 $S $F 30; done
for b in base new base new base new; do i=$((i+1)); run st$i-$b $b 1 $S $F 50; done
L=qwen2-7b
for b in base new base new; do i=$((i+1)); run lu$i-$b $b 0 $L $F 60; done
for b in new base new; do i=$((i+1)); run lt$i-$b $b 1 $L $F 100; done
cp build/s13/call3.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
