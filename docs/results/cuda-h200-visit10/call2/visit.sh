set -u
ls /usr/local/cuda/bin | tr '\n' ' '; echo; which nsys || ls /opt/nvidia 2>/dev/null
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
for e in 0 1; do
EC_CUDA_PDL_EARLY=$e build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16 --tokens 256 > $OUT/d-early$e.md 2>&1; grep -E "^\| qwen" $OUT/d-early$e.md | cut -c1-300
done
build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d-tuned.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d-tuned.md | cut -c1-300
