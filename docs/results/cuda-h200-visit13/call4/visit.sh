set -u
mkdir -p $OUT/r
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{printf "%s|%s|%s|%s\n",$2,$3,$5,$7}'; }
P=build/ab/bench_decode_pdl
ALL=qkv,attn,o,gu,down,head
for m in qwen2-0.5b qwen2-7b; do
  for set in "" $ALL qkv attn o gu down head -qkv -attn -o -gu -down -head; do
    if [[ "$set" == -* ]]; then r=${set#-}; v=$(echo ",$ALL," | sed "s/,$r,/,/; s/^,//; s/,$//"); else v=$set; fi
    EC_CUDA_TUNE=0 EC_EXP_PDL="$v" timeout 60 $P --models $m --formats fp16 --tokens 256 > "$OUT/r/pdl-$m-[$set].md" 2>&1; echo "pdl $m [$set]=($v) rc=$? $(show "$OUT/r/pdl-$m-[$set].md")"
  done
done
cp build/s9/call4.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
