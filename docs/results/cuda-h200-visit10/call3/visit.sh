set -u
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats f16,int8-wo,nf4 --json $OUT/k7.jsonl > $OUT/k7.md 2>&1; grep -E "^\| (f16|int8|nf4)" $OUT/k7.md | cut -c1-150
grep -E '"variant":"r[12][pb](-dbuf)?(-u2)?"' $OUT/k7.jsonl | sed -E 's/"(max_rel_err|bytes|gbs)":[^,}]*,?//g' | cut -c1-120
build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-300
