set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|rel|Failure" $OUT/tests.log | head -30
build/h-cuda/bench/bench_attention > $OUT/attn.md 2>&1; cat $OUT/attn.md
EC_CUDA_PROFILE=1 build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d-fused.md 2>&1; grep -E "^\| qwen|ceiling|profile" $OUT/d-fused.md | cut -c1-400
EC_CUDA_ATTENTION=split build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16 --tokens 256 > $OUT/d-split.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d-split.md | cut -c1-300
