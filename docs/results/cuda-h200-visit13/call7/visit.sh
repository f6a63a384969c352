set -u
mkdir -p $OUT/r
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-80)}'; }
C=build/ab/bench_decode_cfg
for rep in 1 2; do
  for cfg in "" "gu:r2p-dbuf" "gu:r2p-dbuf,o:r2p-dbuf,qkv:r1p"; do
    if [ -z "$cfg" ]; then unset EC_EXP_CFG; else export EC_EXP_CFG="$cfg"; fi
    timeout 60 $C --models qwen2-7b --formats fp16 --tokens 256 --iters 3 > "$OUT/r/f16-$rep-[$cfg].md" 2>&1; echo "fp16 rep $rep [$cfg] rc=$? $(show "$OUT/r/f16-$rep-[$cfg].md")"
  done
  for cfg in "" "o:r2p-dbuf-u2,qkv:r2p-l2pf-u2"; do
    if [ -z "$cfg" ]; then unset EC_EXP_CFG; else export EC_EXP_CFG="$cfg"; fi
    timeout 60 $C --models qwen2-7b --formats int8-wo --tokens 256 --iters 3 > "$OUT/r/i8-$rep-[$cfg].md" 2>&1; echo "int8-wo rep $rep [$cfg] rc=$? $(show "$OUT/r/i8-$rep-[$cfg].md")"
  done
done
unset EC_EXP_CFG
cp build/s9/call7.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
