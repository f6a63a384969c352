set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 120 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure|rel_error|Expected|Which is" $OUT/tests.log | head -12
timeout 90 build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats int8-wo > $OUT/k7.md 2>&1; echo "k7 rc=$?"; grep -E "^\| int8" $OUT/k7.md
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-75)}'; }
for rep in 1; do
for b in A B C D; do
f=fp16,int8-wo; [ $b = C -o $b = D ] && f=int8-wo
echo "== $b rep $rep"
timeout 100 build/ab/$b-bench_decode --models qwen2-0.5b,qwen2-7b --formats $f --tokens 256 > $OUT/d-$rep-$b.md 2>&1; show $OUT/d-$rep-$b.md
done
echo "== A cap2 7B fp16"
EC_EXP_PER_SM_CAP=2 timeout 60 build/ab/A-bench_decode --models qwen2-7b --formats fp16 --tokens 256 > $OUT/d-$rep-Acap2.md 2>&1; show $OUT/d-$rep-Acap2.md
done
which nsys ncu
if which nsys >/dev/null; then
timeout 100 nsys profile --cuda-graph-trace=node -o $OUT/n7 build/ab/A-bench_decode --models qwen2-7b --formats fp16 --tokens 64 --iters 1 > $OUT/nsys.log 2>&1; echo "nsys rc=$?"
timeout 60 nsys stats -r cuda_gpu_trace -f csv -o $OUT/n7 $OUT/n7.nsys-rep > /dev/null 2>&1; echo "stats rc=$?"; ls -la $OUT | head -20
rm -f $OUT/n7.sqlite
fi
