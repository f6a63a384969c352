# Visit 21 call 3: x held in each warp's registers (-wx, f16/bf16, x <= 1,024 features): the GPU
# tests, the 0.5B FP16 kernels with every variant, then decode alternated against main at 0.5B.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s18/call3.sh $OUT/r/
timeout 120 build/ab18/wx/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -8
timeout 120 build/ab18/wx/bench_kernels --preset qwen2-0.5b --formats f16 --json $OUT/r/k-0.5b.jsonl > $OUT/r/k-0.5b.md 2> $OUT/r/k-0.5b.err
echo "kernels rc=$? t=$(( $(date +%s)-T0 ))"
grep "^| f16" $OUT/r/k-0.5b.md | cut -d'|' -f2-9
for i in 1 2 3; do
  for b in main wx; do
    EC_CUDA_TUNE_LOG=1 timeout 60 build/ab18/$b/bench_decode --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 > $OUT/r/d-$b-$i.md 2> $OUT/r/d-$b-$i.err
    echo "$b $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/d-$b-$i.md | cut -d'|' -f3,5,7,13
  done
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
