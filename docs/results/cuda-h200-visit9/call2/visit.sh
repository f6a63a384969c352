set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -12
for p in qwen2-7b qwen2-0.5b; do
  echo "== kernels $p"
  build/h-cuda/bench/bench_kernels --preset $p --formats int8-wo,nf4,nf4-dq --json $OUT/k-$p.jsonl > $OUT/k-$p.md 2>&1
  grep -E "^\| (nf4|nf4-dq|f16|int8-wo) \|" $OUT/k-$p.md | cut -c1-150
done
echo "== decode"; build/h-cuda/bench/bench_decode --models qwen2-7b,qwen2-0.5b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-250
