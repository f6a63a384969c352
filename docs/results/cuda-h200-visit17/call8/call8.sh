set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call8.sh $OUT/r/
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[K]="$P[qkv:r2p+pdl,o:r2p-bulk+pdl,gu:r2p+pdl,down:r1p-bulk+pdl,head:r2p+pdl,$S"
V[R]="$P[qkv:r2p+pdl,o:r2p+pdl,gu:r2p+pdl,down:r1p+pdl,head:r2p+pdl,$S"
i=0
for k in K R K R; do i=$((i+1))
  EC_CUDA_VARIANTS="${V[$k]}" timeout 45 $A/bench_decode_new --models qwen2.5-3b --formats fp16 --tokens 256 --json $OUT/r/d-$i-$k.jsonl > $OUT/r/d-$i-$k.md 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i-$k.md | awk -F'|' '{print $5, $7, $10, $12}' | sed 's/cuda-f32acc-//')"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
