set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 90 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | sed -E 's/cuda-f32acc-//; s/\| [0-9.]+ \| cuda/| cuda/' | cut -c1-230; }
run() { # tag binary tune models formats limit
  EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
F=fp16,int8-wo,nf4
i=0
for b in base new base new; do i=$((i+1)); run su$i-$b $b 0 qwen2-0.5b $F 40; done
cp build/s14/call1.sh $OUT/r/
for b in new new; do i=$((i+1)); run st$i-$b $b 1 qwen2-0.5b $F 50; done
i=$((i+1)); run lt$i-new new 1 qwen2-7b $F 100
i=$((i+1)); run mt$i-new new 1 tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b $F 150
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
