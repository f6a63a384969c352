# Visit 20 call 1: the HeldWide dispatch (x of 2,049-4,096 features normalised in one pass for
# int8-wo / nf4 / nf4-dq) on the GPU: tests, then 7B decode A/B against main's binary, alternated.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s17/call1.sh $OUT/r/
nvidia-smi --query-gpu=name,serial,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv > $OUT/r/gpu.csv 2>&1
timeout 200 build/ab17/wide/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -5
for i in 1 2; do
  for b in base wide; do
    timeout 110 build/ab17/$b/bench_decode --models qwen2-7b --formats int8-wo,nf4 --tokens 256 > $OUT/r/d-$b-$i.md 2> $OUT/r/d-$b-$i.err
    echo "$b $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/d-$b-$i.md | cut -d'|' -f2-6,10-11
  done
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
