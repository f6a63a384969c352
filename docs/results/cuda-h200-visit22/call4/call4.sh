# Visit 22 call 4: the final code (A: NF4's chunk index in 32 bits): its GPU tests; main and A with
# each build's tuned NF4 variant set pinned in both builds (0.5B and 7B, from call 3), so the
# kernels are compared apart from the tuner's choice; then A's standing, five architectures ×
# FP16, INT8-WO, NF4, one process.
set -u
mkdir -p $OUT/r build/x
T0=$(date +%s)
cp build/s19/call4.sh $OUT/r/
tar xzf build/ab19p/bins.tgz -C build/x
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.txt 2>&1
timeout 100 build/x/A/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -5
M05='cuda-f32acc-nf4-gemv-v2[qkv:r2p+pdl,o:r1p-l2pf+pdl,gu:r2p-dbuf-u2+pdl,down:r1p-dbuf+pdl,head:r2p+pdl,attn-fused-splits:5]'
A05='cuda-f32acc-nf4-gemv-v2[qkv:r2p+pdl,o:r2p-dbuf+pdl,gu:r2p+pdl,down:r1p-dbuf+pdl,head:r2p+pdl,attn-fused-splits:5]'
M7='cuda-f32acc-nf4-gemv-v2[qkv:r1p-dbuf+pdl,o:r2p+pdl,gu:r2p-dbuf-u2+pdl,down:r2p-l2pf-u2+pdl,head:r1p+pdl,attn-fused-splits:5]'
A7='cuda-f32acc-nf4-gemv-v2[qkv:r2p+pdl,o:r2p+pdl,gu:r2p-l2pf+pdl,down:r2p-l2pf-u2+pdl,head:r2p+pdl,attn-fused-splits:5]'
for i in 1 2; do
  for set in M05 A05 M7 A7; do
    m=qwen2-0.5b; [[ $set == *7 ]] && m=qwen2-7b
    for b in main A; do
      EC_CUDA_VARIANTS="${!set}" timeout 50 build/x/$b/bench_decode --models $m --formats nf4 --tokens 256 > $OUT/r/p-$set-$b-$i.md 2> $OUT/r/p-$set-$b-$i.err
      echo "pinned $set $b $i rc=$? t=$(( $(date +%s)-T0 )) $(grep '^| qwen' $OUT/r/p-$set-$b-$i.md | cut -d'|' -f5)"
    done
  done
done
timeout 300 build/x/A/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/standing.jsonl > $OUT/r/standing.md 2> $OUT/r/standing.err
echo "standing rc=$? t=$(( $(date +%s)-T0 ))"
cat $OUT/r/standing.md | cut -d'|' -f2-8
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
