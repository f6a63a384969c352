set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call7.sh $OUT/r/
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 120 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | sed -E 's/cuda-f32acc-//; s/\| [0-9.]+ \| cuda/| cuda/' | cut -c1-250; }
timeout 400 $A/bench_decode_new --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/d-all.jsonl > $OUT/r/d-all.md 2>&1; echo "decode rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-all.md
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
