set -u
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
build/h-cuda/bench/bench_nf4_probe --role gate_up --config r2p-dbuf-u2 --reps 30 2>&1 | tee $OUT/probe.md
build/h-cuda/bench/bench_kernels --preset qwen2-0.5b --formats nf4 > $OUT/k.md 2>&1; grep -E "^\| nf4" $OUT/k.md | cut -c1-150
build/h-cuda/bench/bench_decode --models qwen2-0.5b --formats fp16,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-200
