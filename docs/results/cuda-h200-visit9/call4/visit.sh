set -u
echo "tools: $(ls /usr/local/cuda*/bin 2>/dev/null | grep -E 'ncu|nsys|cuobjdump|nvdisasm' | tr '\n' ' ') $(which ncu nsys cuobjdump nvdisasm 2>/dev/null | tr '\n' ' ')"
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
build/h-cuda/bench/bench_nf4_probe --reps 30 2>&1 | tee $OUT/probe.md
kill $SMI; sort -t, -k2 -n $OUT/smi.csv | awk -F, 'NR>1{print $2,$4}' | sort | uniq -c | sort -rn | head -5
echo "== decode"; build/h-cuda/bench/bench_decode --models qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-250
