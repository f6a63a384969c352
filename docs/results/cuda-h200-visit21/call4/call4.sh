# Visit 21 call 4 (main's kernels, bench_decode with the × FP16 column): make run's job on the GPU;
# the standing table; then 0.5B tuned against the same variants pinned (EC_CUDA_VARIANTS).
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s18/call4.sh $OUT/r/
B=build/ab18/final
timeout 150 $B/ecocompute run --out $OUT/r/energy.json > $OUT/r/run.log 2>&1; echo "run rc=$? t=$(( $(date +%s)-T0 ))"
$B/ecocompute validate $OUT/r/energy.json >> $OUT/r/run.log 2>&1; echo "validate rc=$?"
grep -E "^\|" $OUT/r/run.log | head -6
timeout 280 $B/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/standing.jsonl > $OUT/r/standing.md 2> $OUT/r/standing.err
echo "standing rc=$? t=$(( $(date +%s)-T0 ))"
cut -d'|' -f2,3,5,7,11 $OUT/r/standing.md
F='cuda-f32acc-f16-gemv-v1[qkv:r2p+pdl,o:r2p+pdl,gu:r2p+pdl,down:r1p-u8+pdl,head:r2p+pdl,attn-fused-splits:5]'
for i in 1 2 3; do
  timeout 40 $B/bench_decode --models qwen2-0.5b --formats fp16 --tokens 256 > $OUT/r/t-$i.md 2> $OUT/r/t-$i.err
  echo "tuned $i rc=$? $(grep '^| qwen' $OUT/r/t-$i.md | cut -d'|' -f5,13)"
  EC_CUDA_VARIANTS="$F" timeout 40 $B/bench_decode --models qwen2-0.5b --formats fp16 --tokens 256 > $OUT/r/p-$i.md 2> $OUT/r/p-$i.err
  echo "pinned $i rc=$? $(grep '^| qwen' $OUT/r/p-$i.md | cut -d'|' -f5,13)"
done
echo "t=$(( $(date +%s)-T0 ))"
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
