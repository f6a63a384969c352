set -u
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s|%s|%s\n",$2,$3,$5,$7,$8,$9,substr(v,n-60)}'; }
B=build/ab/bench_decode_base
timeout 390 $B --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,int8,nf4,nf4-dq --tokens 256 --json $OUT/r/d.jsonl > $OUT/r/d.md 2>&1; echo "decode rc=$?"; show $OUT/r/d.md
K=build/h-cuda/bench/bench_kernels
timeout 160 $K --preset qwen2-7b --formats f16,int8-llm,nf4,nf4-dq --json $OUT/r/k7.jsonl > $OUT/r/k7.md 2>&1; echo "kernels rc=$?"; grep "^| " $OUT/r/k7.md | cut -c1-120
cp build/s9/call6.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
