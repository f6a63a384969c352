# Visit 19 call 5: resumes call 4's sweep (its limit stopped the tenth cell).
set -u
mkdir -p $OUT/r
A=build/ab16
T0=$(date +%s)
cp build/s16/call5.sh $OUT/r/
cp -r build/s16/v4/r/sweep /tmp/sweep
timeout 100 $A/ecocompute sweep --models qwen2-7b,qwen2-0.5b,qwen2.5-3b,tinyllama-1.1b,qwen2-1.5b --precisions INT8,NF4 --repeats 1 --new-tokens 1024 --iterations 3 --warmup 1 --backend cuda --out /tmp/sweep --format md -- --idle-seconds 2 --hz 100 --no-quality > $OUT/r/sweep-resume.log 2>&1; echo "sweep rc=$? t=$(( $(date +%s)-T0 ))"
tail -14 $OUT/r/sweep-resume.log
cp -r /tmp/sweep $OUT/r/sweep
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
