# Visit 21 call 1: the RMSNorm scale after one barrier (rms) against main (HeldWide, 14cd48f's
# kernels): the GPU tests, then decode alternated, 0.5B and 7B × FP16, INT8-WO, NF4.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s18/call1.sh $OUT/r/
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.txt 2>&1
timeout 100 build/ab18/rms/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -3
for i in 1 2; do
  for b in main rms; do
    timeout 125 build/ab18/$b/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/d-$b-$i.jsonl > $OUT/r/d-$b-$i.md 2> $OUT/r/d-$b-$i.err
    echo "$b $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/d-$b-$i.md | cut -d'|' -f2-7,11
  done
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
