set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call5.sh $OUT/r/
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[T]=""
V[U]=""
V[A]="$P[qkv:r1p-u8+pdl,o:r1p-bulk+pdl,gu:r2p-dbuf+pdl,down:r2p-bulk+pdl,head:r2p-bulk+pdl,$S"
V[Q]="$P[qkv:r1p-bulk+pdl,o:r1p-u16+pdl,gu:r2p-dbuf+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
V[G]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-bulk-u2+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
V[H]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-bulk+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
i=0
for k in T U A Q G H; do i=$((i+1))
  if [ $k = U ]; then tune=0; else tune=1; fi
  EC_CUDA_TUNE=$tune EC_CUDA_VARIANTS="${V[$k]}" timeout 60 $A/bench_decode_new --models qwen2-7b --formats fp16 --tokens 256 --json $OUT/r/d-$i-$k.jsonl > $OUT/r/d-$i-$k.md 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i-$k.md | awk -F'|' '{print $5, $7, $10, $12}' | sed 's/cuda-f32acc-//')"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
