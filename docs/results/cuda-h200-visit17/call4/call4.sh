set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 120 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from|bit for bit" $OUT/r/tests.log | head -12
cp build/s14/call4.sh $OUT/r/
show() { grep -E "^\| (qwen|tiny)" $1 | sed -E 's/cuda-f32acc-//; s/\| [0-9.]+ \| cuda/| cuda/' | cut -c1-240; }
run() { EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
F=fp16,int8-wo,nf4
run l1 new 1 qwen2-7b $F 110
run s2 new 1 qwen2-0.5b $F 50
run l3 new 1 qwen2-7b $F 110
run s4 new 1 qwen2-0.5b $F 50
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
