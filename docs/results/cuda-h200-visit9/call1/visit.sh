set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; tail -3 $OUT/tests.log
for p in qwen2-7b qwen2-0.5b; do for v in ab-old h-cuda; do
  echo "== kernels $p $v"
  build/$v/bench/bench_kernels --preset $p --formats f16,int8-wo,nf4,nf4-dq --json /tmp/k-$p-$v.jsonl > $OUT/k-$p-$v.md 2>&1
  grep -E "^\| (nf4|nf4-dq|f16|int8-wo) \|" $OUT/k-$p-$v.md | cut -c1-150
done; done
for v in ab-old h-cuda; do echo "== decode $v"; build/$v/bench/bench_decode --models qwen2-7b,qwen2-0.5b --formats fp16,nf4 --tokens 256 > $OUT/d-$v.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d-$v.md | cut -c1-200; done
