set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 90 $A/test_engine_cuda_gaps --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
for v in base flat gaps; do /usr/local/cuda/bin/cuobjdump -sass $A/gemv_nf4_$v.o > $OUT/r/sass-$v.txt 2>&1; done
python3 build/s11/sass_count.py $OUT/r/sass-base.txt $OUT/r/sass-flat.txt $OUT/r/sass-gaps.txt > $OUT/r/sass-counts.md 2>&1; grep -E "Nf4Policy, 2, 2, 2|Nf4Policy, 1, 0, 4" $OUT/r/sass-counts.md | cut -c1-200
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-70)}'; }
for v in base gaps flat; do timeout 100 $A/bench_kernels_$v --preset qwen2-7b --formats nf4,nf4-dq --json $OUT/r/k7-$v.jsonl > $OUT/r/k7-$v.md 2>&1; echo "k7 $v rc=$?"; grep "^| nf4" $OUT/r/k7-$v.md | cut -c1-120; done
for v in base gaps; do timeout 100 $A/bench_decode_$v --models qwen2-0.5b,qwen2-7b --formats fp16,nf4,nf4-dq --tokens 256 > $OUT/r/d-$v.md 2>&1; echo "decode $v rc=$?"; show $OUT/r/d-$v.md; done
timeout 60 $A/bench_decode_flat --models qwen2-7b --formats nf4 --tokens 256 > $OUT/r/d-flat.md 2>&1; echo "decode flat rc=$?"; show $OUT/r/d-flat.md
cp build/s11/call1.sh build/ab/gaps.patch $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
