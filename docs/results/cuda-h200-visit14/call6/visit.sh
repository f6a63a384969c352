set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 80 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
timeout 200 $A/ecocompute run --model qwen2-7b --precision NF4 --iterations 5 --warmup 1 --hz 100 --out $OUT/r/run-qwen2-7b-NF4.json > $OUT/r/run-7b.log 2>&1; echo "run rc=$?"; tail -22 $OUT/r/run-7b.log
cp build/s11/call6.sh $OUT/r/visit.sh
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
