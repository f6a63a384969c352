set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure|rel_error|Which is|not det|counters|written" $OUT/tests.log | head -30
timeout 60 build/h-cuda/bench/bench_attention --presets qwen2-0.5b,qwen2-7b --lengths 272,1024 > $OUT/attn.md 2>&1; echo "attn rc=$?"; grep -E "o GEMV|with o|copy" $OUT/attn.md
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-75)}'; }
B=build/h-cuda/bench/bench_decode
timeout 70 $B --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 --json $OUT/d05.jsonl > $OUT/d05.md 2>&1; echo "d05 rc=$?"; show $OUT/d05.md
EC_CUDA_FUSE_O=0 timeout 50 $B --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 > $OUT/d05-sep.md 2>&1; show $OUT/d05-sep.md
timeout 120 $B --models qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d7.jsonl > $OUT/d7.md 2>&1; echo "d7 rc=$?"; show $OUT/d7.md
EC_CUDA_FUSE_O=0 timeout 100 $B --models qwen2-7b --formats fp16,int8-wo --tokens 256 > $OUT/d7-sep.md 2>&1; show $OUT/d7-sep.md
