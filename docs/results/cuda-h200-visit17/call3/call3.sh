set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
show() { grep -E "^\| (qwen|tiny)" $1 | sed -E 's/cuda-f32acc-//; s/\| [0-9.]+ \| cuda/| cuda/' | cut -c1-230; }
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[A]="$P[qkv:r1p-u8+pdl,o:r1p-bulk+pdl,gu:r2p-dbuf+pdl,down:r2p-bulk+pdl,head:r2p-bulk+pdl,$S"
V[B]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-dbuf+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
V[C]="$P[qkv:r2p,o:r2p,gu:r2p,down:r2p-dbuf,head:r2p,$S"
V[D]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-dbuf+pdl,down:r2p-bulk+pdl,head:r1p-dbuf+pdl,$S"
V[E]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-dbuf+pdl,down:r2g+pdl,head:r2p-bulk+pdl,$S"
V[F]="$P[qkv:r1p-u8+pdl,o:r1p-bulk+pdl,gu:r2p-dbuf+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
for k in A B C D E F; do echo "$k ${V[$k]}"; done > $OUT/r/variants.txt
cp build/s14/call3.sh $OUT/r/
i=0
for rep in 1 2; do for k in A B C D E F; do i=$((i+1))
  EC_CUDA_VARIANTS="${V[$k]}" timeout 40 $A/bench_decode_bulk --models qwen2-7b --formats fp16 --tokens 256 --json $OUT/r/d-$i-$k.jsonl > $OUT/r/d-$i-$k.md 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i-$k.md | awk -F'|' '{print $5, $7, $10}')"
done; done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
