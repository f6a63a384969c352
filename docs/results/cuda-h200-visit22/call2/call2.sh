# Visit 22 call 2: NF4's chunk index in 32 bits (A) and, on top, the register buffers taking turns
# (B), against main: B's GPU tests, the NF4 probe for every config, then 7B decode alternated.
set -u
mkdir -p $OUT/r build/x
T0=$(date +%s)
cp build/s19/call2.sh $OUT/r/
tar xzf build/ab19p/bins.tgz -C build/x
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.txt 2>&1
timeout 100 build/x/B/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"
grep -E "PASSED|FAILED" $OUT/r/tests.log | tail -5
for v in main A B; do
  timeout 60 build/x/$v/bench_nf4_probe --part full --reps 20 > $OUT/r/p-$v.md 2>&1; echo "probe $v rc=$? t=$(( $(date +%s)-T0 ))"
done
paste -d'|' <(grep "^| gate\|^| down" $OUT/r/p-main.md | cut -d'|' -f2,3,5) <(grep "^| gate\|^| down" $OUT/r/p-A.md | cut -d'|' -f5) <(grep "^| gate\|^| down" $OUT/r/p-B.md | cut -d'|' -f5)
for i in 1 2; do
  for v in main A B; do
    timeout 100 build/x/$v/bench_decode --models qwen2-7b --formats int8-wo,nf4 --tokens 256 --json $OUT/r/d-$v-$i.jsonl > $OUT/r/d-$v-$i.md 2> $OUT/r/d-$v-$i.err
    echo "$v $i rc=$? t=$(( $(date +%s)-T0 ))"
    grep "^| qwen" $OUT/r/d-$v-$i.md | cut -d'|' -f2-7,12
  done
done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
