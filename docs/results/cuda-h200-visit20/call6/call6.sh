# Visit 20 call 6: the RMSNorm gain prefetched into L1 before the PDL wait (gain) against the
# HeldWide build (wide): tests, then decode alternated, 0.5B (three formats) and 7B (FP16, INT8-WO).
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s17/call6.sh $OUT/r/
timeout 100 build/ab17/gain/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -3
for i in 1 2; do
  for b in wide gain; do
    timeout 130 build/ab17/$b/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/r/d-$b-$i.md 2> $OUT/r/d-$b-$i.err
    echo "$b $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/d-$b-$i.md | cut -d'|' -f2-6
  done
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
