set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 90 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-60)}'; }
for rep in 1 2; do for v in base new; do EC_CUDA_TUNE=0 timeout 40 $A/bench_decode_$v --models qwen2-0.5b --formats fp16,nf4,nf4-dq --tokens 256 > $OUT/r/u05-$rep-$v.md 2>&1; echo "untuned 0.5b $rep $v rc=$?"; show $OUT/r/u05-$rep-$v.md; done; done
for rep in 1 2; do for v in base new; do timeout 40 $A/bench_decode_$v --models qwen2-0.5b --formats nf4,nf4-dq --tokens 256 > $OUT/r/t05-$rep-$v.md 2>&1; echo "tuned 0.5b $rep $v rc=$?"; show $OUT/r/t05-$rep-$v.md; done; done
timeout 240 $A/bench_decode_new --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,nf4,nf4-dq --tokens 256 --json $OUT/r/d-all.jsonl > $OUT/r/d-all.md 2>&1; echo "all presets rc=$?"; show $OUT/r/d-all.md
timeout 60 $A/bench_kernels_new --preset qwen2-7b --formats nf4,nf4-dq --json $OUT/r/k7.jsonl > $OUT/r/k7.md 2>&1; echo "kernels rc=$?"; grep "^| nf4" $OUT/r/k7.md | cut -c1-110
cp build/s11/call4.sh build/ab/new.patch $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
