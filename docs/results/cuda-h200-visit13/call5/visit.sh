set -u
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-95)}'; }
for rep in 1 2; do
  for bin in base new; do
    B=build/ab/bench_decode_base; [ $bin = new ] && B=build/h-cuda/bench/bench_decode
    timeout 120 $B --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b --formats fp16,int8-wo --tokens 256 --json $OUT/r/ab-$rep-$bin.jsonl > $OUT/r/ab-$rep-$bin.md 2>&1; echo "ab rep $rep $bin rc=$?"; show $OUT/r/ab-$rep-$bin.md
  done
done
cp build/s9/call5.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
