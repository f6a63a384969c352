set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call9.sh $OUT/r/
S=attn-fused-splits:5]
declare -A V M
P=cuda-f32acc-int8-wo-gemv-v2
V[IK]="$P[qkv:r2p+pdl,o:r2p-bulk+pdl,gu:r2p+pdl,down:r1p-bulk+pdl,head:r2p+pdl,$S"; M[IK]="qwen2.5-3b int8-wo"
V[IR]="$P[qkv:r2p+pdl,o:r4p+pdl,gu:r2p+pdl,down:r1p-u16+pdl,head:r2p+pdl,$S"; M[IR]="qwen2.5-3b int8-wo"
P=cuda-f32acc-f16-gemv-v1
V[LK]="$P[qkv:r2p+pdl,o:r2p-bulk+pdl,gu:r2p+pdl,down:r1p-bulk+pdl,head:r2p+pdl,$S"; M[LK]="qwen2-7b fp16"
V[LR]="$P[qkv:r2p+pdl,o:r2p+pdl,gu:r2p+pdl,down:r1p+pdl,head:r2p+pdl,$S"; M[LR]="qwen2-7b fp16"
i=0
for k in IK IR IK IR LK LR LK LR; do i=$((i+1)); set -- ${M[$k]}
  EC_CUDA_VARIANTS="${V[$k]}" timeout 45 $A/bench_decode_new --models $1 --formats $2 --tokens 256 --json $OUT/r/d-$i-$k.jsonl > $OUT/r/d-$i-$k.md 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i-$k.md | awk -F'|' '{print $5, $7, $10, $12}' | sed 's/cuda-f32acc-//')"
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
