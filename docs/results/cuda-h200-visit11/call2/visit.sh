set -u
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-60)}'; }
B=build/h-cuda/bench/bench_decode
timeout 60 $B --models qwen2-0.5b --formats fp16 --prefetch-mb 0 --tokens 256 > $OUT/b05.md 2>&1; show $OUT/b05.md
EC_CUDA_PREFETCH_SELF=1 timeout 90 $B --models qwen2-0.5b --formats fp16,int8-wo --prefetch-mb 2,4,8,16 --tokens 256 --json $OUT/s05.jsonl > $OUT/s05.md 2>&1; echo "s05 rc=$?"; show $OUT/s05.md
timeout 60 $B --models qwen2-7b --formats fp16 --prefetch-mb 0 --tokens 256 > $OUT/b7.md 2>&1; show $OUT/b7.md
EC_CUDA_PREFETCH_SELF=1 timeout 200 $B --models qwen2-7b --formats fp16,int8-wo --prefetch-mb 8,16,32 --tokens 256 --json $OUT/s7.jsonl > $OUT/s7.md 2>&1; echo "s7 rc=$?"; show $OUT/s7.md
