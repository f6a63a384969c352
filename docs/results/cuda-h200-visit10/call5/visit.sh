set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
timeout 380 stdbuf -oL build/h-cuda/bench/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4,nf4-dq,int8 --tokens 256 --json $OUT/decode-all.jsonl > $OUT/decode-all.md 2>&1; echo "decode rc=$?"; grep -E "^\| (qwen|tiny)|ceiling" $OUT/decode-all.md | cut -c1-330
timeout 170 build/h-cuda/bin/ecocompute run --model qwen2-7b --precision NF4 --iterations 5 --warmup 1 --hz 100 --out $OUT/run-qwen2-7b-NF4.json > $OUT/run-7b.log 2>&1; echo "run rc=$?"; tail -30 $OUT/run-7b.log
