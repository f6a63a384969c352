set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
cp build/s14/call6.sh $OUT/r/
timeout 100 $A/test_engine_cuda_unfixed --gtest_filter='*BulkCopyVariantsRepeat*' --gtest_brief=1 > $OUT/r/tests-unfixed.log 2>&1; echo "unfixed stress rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|differs" $OUT/r/tests-unfixed.log | head -6
timeout 150 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from|differs" $OUT/r/tests.log | head -8
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[T]=""
V[G]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-bulk-u2+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
V[H]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-bulk+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
V[A]="$P[qkv:r1p-u8+pdl,o:r1p-bulk+pdl,gu:r2p-dbuf+pdl,down:r2p-bulk+pdl,head:r2p-bulk+pdl,$S"
V[B]="$P[qkv:r1p-u8+pdl,o:r1p-u16+pdl,gu:r2p-dbuf+pdl,down:r2g+pdl,head:r1p-dbuf+pdl,$S"
i=0
for k in G H A B A B; do i=$((i+1))
  EC_CUDA_VARIANTS="${V[$k]}" timeout 60 $A/bench_decode_new --models qwen2-7b --formats fp16 --tokens 256 --json $OUT/r/d-$i-$k.jsonl > $OUT/r/d-$i-$k.md 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 )) $(grep -E '^\| qwen' $OUT/r/d-$i-$k.md | awk -F'|' '{print $5, $7, $10, $12}' | sed 's/cuda-f32acc-//')"
done
EC_CUDA_VARIANTS= timeout 120 $A/bench_decode_new --models qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/r/d-t.jsonl > $OUT/r/d-t.md 2>&1; echo "tuned rc=$? t=$(( $(date +%s)-T0 ))"; grep -E '^\| qwen' $OUT/r/d-t.md | awk -F'|' '{print $3, $5, $7, $10, $12}' | sed 's/cuda-f32acc-//'
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
