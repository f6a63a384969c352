# Visit 22 call 5: where a decode step's time goes at 7B for FP16, INT8-WO and NF4 (final code, A),
# kernel by kernel without the graph (EC_CUDA_PROFILE=1), as visit 19 call 6 did for FP16/INT8-WO.
set -u
mkdir -p $OUT/r build/x
T0=$(date +%s)
cp build/s19/call5.sh $OUT/r/
tar xzf build/ab19p/bins.tgz -C build/x A/bench_decode
EC_CUDA_PROFILE=1 timeout 200 build/x/A/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/r/decode.md 2> $OUT/r/decode.err; echo "decode rc=$? t=$(( $(date +%s)-T0 ))"
grep "cuda profile" $OUT/r/decode.err; grep "^| qwen" $OUT/r/decode.md | cut -d'|' -f2-7,11
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
