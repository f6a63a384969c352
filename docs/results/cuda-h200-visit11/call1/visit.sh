set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-60)}'; }
B=build/h-cuda/bench/bench_decode
timeout 90 $B --models qwen2-0.5b --formats fp16 --prefetch-mb 0,8,16,32,auto --tokens 256 --json $OUT/d05.jsonl > $OUT/d05.md 2>&1; echo "d05 rc=$?"; show $OUT/d05.md
timeout 60 $B --models qwen2-0.5b --formats int8-wo,nf4 --prefetch-mb 0,16 --tokens 256 --json $OUT/d05q.jsonl > $OUT/d05q.md 2>&1; echo "d05q rc=$?"; show $OUT/d05q.md
EC_CUDA_PREFETCH_EARLY=1 timeout 30 $B --models qwen2-0.5b --formats fp16 --prefetch-mb 16 --tokens 256 > $OUT/d05e.md 2>&1; show $OUT/d05e.md
timeout 260 $B --models qwen2-7b --formats fp16,int8-wo,nf4 --prefetch-mb 0,16,32 --tokens 256 --json $OUT/d7.jsonl > $OUT/d7.md 2>&1; echo "d7 rc=$?"; show $OUT/d7.md
EC_CUDA_PREFETCH_EARLY=1 timeout 45 $B --models qwen2-7b --formats fp16 --prefetch-mb 16 --tokens 256 > $OUT/d7e.md 2>&1; show $OUT/d7e.md
