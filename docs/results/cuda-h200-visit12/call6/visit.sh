set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 100 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s|%s\n",$2,$3,$5,$7,$9,substr(v,n-70)}'; }
timeout 260 build/h-cuda/bench/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d.jsonl > $OUT/d.md 2>&1; echo "decode rc=$?"; show $OUT/d.md
mkdir -p $OUT/reports
EC=build/h-cuda/bin/ecocompute
timeout 100 $EC run --model qwen2-0.5b --precision INT8-WO --backend cuda --iterations 3 --warmup 1 --new-tokens 256 --idle-seconds 2 --hz 100 --out $OUT/reports/run-0.5b-int8wo.json > $OUT/run-0.5b.log 2>&1; echo "run 0.5b rc=$?"; tail -25 $OUT/run-0.5b.log
timeout 150 $EC run --model qwen2-7b --precision INT8-WO --backend cuda --iterations 3 --warmup 1 --new-tokens 256 --idle-seconds 2 --hz 100 --no-quality --out $OUT/reports/run-7b-int8wo.json > $OUT/run-7b.log 2>&1; echo "run 7b rc=$?"; tail -25 $OUT/run-7b.log
