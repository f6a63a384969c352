# Visit 21 call 2: (1) rms against main at 0.5B, tuned, three more pairs; (2) 0.5B NF4 with each
# build's tuned variant set pinned in both builds (the kernel change apart from the tuner's
# choice); (3) standing: rms, five architectures × FP16, INT8-WO, NF4, one process.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s18/call2.sh $OUT/r/
A='cuda-f32acc-nf4-gemv-v2[qkv:r2p-l2pf-u2+pdl,o:r2p-dbuf+pdl,gu:r2p-dbuf-u2+pdl,down:r1p-dbuf+pdl,head:r1p+pdl,attn-fused-splits:5]'
B='cuda-f32acc-nf4-gemv-v2[qkv:r2p+pdl,o:r1p-l2pf+pdl,gu:r2p-dbuf-u2+pdl,down:r1p-dbuf+pdl,head:r2p+pdl,attn-fused-splits:5]'
for i in 1 2 3; do
  for b in main rms; do
    timeout 60 build/ab18/$b/bench_decode --models qwen2-0.5b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/r/s-$b-$i.md 2> $OUT/r/s-$b-$i.err
    echo "$b $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/s-$b-$i.md | cut -d'|' -f3,5,7
  done
done
for i in 1 2; do
  for set in A B; do
    for b in main rms; do
      EC_CUDA_VARIANTS="${!set}" timeout 40 build/ab18/$b/bench_decode --models qwen2-0.5b --formats nf4 --tokens 256 > $OUT/r/p-$set-$b-$i.md 2> $OUT/r/p-$set-$b-$i.err
      echo "pinned $set $b $i rc=$? t=$(( $(date +%s)-T0 )) $(grep '^| qwen' $OUT/r/p-$set-$b-$i.md | cut -d'|' -f5)"
    done
  done
done
timeout 280 build/ab18/rms/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/standing.jsonl > $OUT/r/standing.md 2> $OUT/r/standing.err
echo "standing rc=$? t=$(( $(date +%s)-T0 ))"
cat $OUT/r/standing.md | cut -d'|' -f2-7,12
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
