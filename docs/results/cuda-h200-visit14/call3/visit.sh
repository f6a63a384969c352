set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 90 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
/usr/local/cuda/bin/cuobjdump -sass $A/gemv_nf4_new.o > $OUT/r/sass-new.txt 2>&1
python3 build/s11/sass_count.py $OUT/r/sass-new.txt > $OUT/r/sass-counts.md 2>&1; grep -E "Nf4Policy, 2, \(GemvPipeline\)2, 2>" $OUT/r/sass-counts.md | cut -c1-200
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-70)}'; }
for v in base new; do for p in qwen2-7b qwen2-0.5b; do timeout 100 $A/bench_kernels_$v --preset $p --formats nf4,nf4-dq --json $OUT/r/k-$p-$v.jsonl > $OUT/r/k-$p-$v.md 2>&1; echo "kernels $p $v rc=$?"; grep "^| nf4" $OUT/r/k-$p-$v.md | cut -c1-110; done; done
for rep in 1 2; do for v in base new; do timeout 100 $A/bench_decode_$v --models qwen2-0.5b,qwen2-7b --formats fp16,nf4,nf4-dq --tokens 256 --json $OUT/r/d-$rep-$v.jsonl > $OUT/r/d-$rep-$v.md 2>&1; echo "decode $rep $v rc=$?"; show $OUT/r/d-$rep-$v.md; done; done
cp build/s11/call3.sh build/ab/new.patch $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
