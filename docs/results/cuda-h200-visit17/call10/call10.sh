set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call10.sh $OUT/r/
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[K]="$P[qkv:r2p+pdl,o:r2p-bulk+pdl,gu:r2p+pdl,down:r1p-bulk+pdl,head:r2p+pdl,$S"
V[R]="$P[qkv:r2p+pdl,o:r2p+pdl,gu:r2p+pdl,down:r1p+pdl,head:r2p+pdl,$S"
i=0
for k in K R K R; do i=$((i+1))
  EC_CUDA_VARIANTS="${V[$k]}" timeout 70 $A/ecocompute run --model qwen2.5-3b --precision FP16 --no-quality --iterations 3 --warmup 1 --hz 100 --out $OUT/r/run-$i-$k.json > $OUT/r/run-$i-$k.log 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 ))"; grep -iE "tok/s|J/1k|kernel|FP16" $OUT/r/run-$i-$k.log | tail -6
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
