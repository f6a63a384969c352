# Visit 19 call 6: where a decode step's time goes today (the last kernel-by-kernel profile is
# visit 3's), for 0.5B and 7B FP16/INT8-WO, and each GEMV against the copy ceiling.
set -u
mkdir -p $OUT/r
A=build/ab16
T0=$(date +%s)
cp build/s16/call6.sh $OUT/r/
EC_CUDA_PROFILE=1 timeout 170 $A/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo --tokens 256 > $OUT/r/decode.md 2> $OUT/r/decode.err; echo "decode rc=$? t=$(( $(date +%s)-T0 ))"
grep "cuda profile" $OUT/r/decode.err; grep "^|" $OUT/r/decode.md | head -8
for p in qwen2-0.5b qwen2-7b; do
  timeout 60 $A/bench_kernels --preset $p --formats f16,int8-wo > $OUT/r/k-$p.md 2>&1; echo "kernels $p rc=$? t=$(( $(date +%s)-T0 ))"
  grep -E "^\| (f16|int8-wo) " $OUT/r/k-$p.md | cut -d'|' -f2-10
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
