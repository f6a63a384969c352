set -u
mkdir -p $OUT/r
A=build/ab15
T0=$(date +%s)
cp build/s15/call1.sh $OUT/r/
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv 2>&1
timeout 150 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from" $OUT/r/tests.log | head -8
i=0
for m in qwen2-7b:fp16 qwen2-7b:fp16 qwen2-7b:fp16 qwen2-7b:int8-wo qwen2.5-3b:fp16 qwen2-7b:fp16; do i=$((i+1))
  EC_CUDA_TUNE_LOG=1 timeout 100 $A/bench_decode --models ${m%%:*} --formats ${m##*:} --tokens 256 --json $OUT/r/d-$i.jsonl > $OUT/r/d-$i.md 2>$OUT/r/tune-$i.log; echo "$m rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i.md | awk -F'|' '{print $5, $7, $10, $12}' | sed 's/cuda-f32acc-//')"
  grep -E "together|tuned set|chosen" $OUT/r/tune-$i.log | sed 's/^\[cuda tune\] //'
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
