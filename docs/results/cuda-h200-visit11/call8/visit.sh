set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 120 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-90)}'; }
timeout 240 build/h-cuda/bench/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d.jsonl > $OUT/d.md 2>&1; echo "decode rc=$?"; show $OUT/d.md
