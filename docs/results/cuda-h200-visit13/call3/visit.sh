set -u
mkdir -p $OUT/r
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s|%s\n",$2,$3,$5,$7,$9,substr(v,n-60)}'; }
SK=build/ab/bench_decode_skip
for m in qwen2-0.5b qwen2-7b; do
  for s in none qkv attn o, gu down head; do
    EC_CUDA_TUNE=0 EC_EXP_SKIP=$s timeout 60 $SK --models $m --formats fp16 --tokens 256 > $OUT/r/skip-$m-$s.md 2>&1; echo "skip $m $s rc=$?"; show $OUT/r/skip-$m-$s.md
  done
done
cp build/s9/call3a.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
