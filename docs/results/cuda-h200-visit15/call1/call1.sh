set -u
mkdir -p $OUT/r
A=build/ab
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 80 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-90)}'; }
for v in base new; do timeout 70 $A/bench_kernels_$v --preset qwen2-7b --formats f16,int8-wo,nf4 --json $OUT/r/k7-$v.jsonl > $OUT/r/k7-$v.md 2>&1; echo "kernels $v rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "^\| (f16|int8-wo|nf4) " $OUT/r/k7-$v.md | cut -c1-110; done
for rv in 1-base 1-new 2-new 2-base; do v=${rv#*-}; timeout 110 $A/bench_decode_$v --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/d-$rv.jsonl > $OUT/r/d-$rv.md 2>&1; echo "decode $rv rc=$? t=$(( $(date +%s)-T0 ))"; grep "copy ceiling" $OUT/r/d-$rv.md | head -1; show $OUT/r/d-$rv.md; done
cp build/s12/call1.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
