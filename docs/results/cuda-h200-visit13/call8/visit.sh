set -u
mkdir -p $OUT/r
timeout 75 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -6
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-80)}'; }
for rep in 1 2; do
  for bin in base new; do
    B=build/ab/bench_decode_base; [ $bin = new ] && B=build/h-cuda/bench/bench_decode
    timeout 45 $B --models qwen2-7b --formats fp16 --tokens 256 > $OUT/r/f16-$rep-$bin.md 2>&1; echo "7b fp16 $rep $bin rc=$? $(show $OUT/r/f16-$rep-$bin.md)"
  done
done
timeout 45 build/h-cuda/bench/bench_decode --models qwen2-7b --formats int8-wo --tokens 256 > $OUT/r/i8-new.md 2>&1; echo "7b int8-wo new rc=$? $(show $OUT/r/i8-new.md)"
timeout 30 build/h-cuda/bench/bench_decode --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 > $OUT/r/d05-new.md 2>&1; echo "0.5b new rc=$?"; show $OUT/r/d05-new.md
cp build/s9/call8.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
