# Visit 20 call 5: the whole tool on the GPU with this session's binary: `run` at 7B NF4 (its
# 3,584-feature normalised GEMVs now run HeldWide) with its FP16 baseline, quality probe and
# meter, then `validate`; the summary table's `iteration CV` column (ee7ac91) and 19b2035's
# counter-edge refactor had not run on a GPU.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s17/call5.sh $OUT/r/
A=build/ab17/wide
timeout 400 $A/ecocompute run --model qwen2-7b --precision NF4 --new-tokens 512 --iterations 3 --warmup 1 --hz 100 --idle-seconds 2 --out $OUT/r/run-qwen2-7b-NF4.json > $OUT/r/run.out 2> $OUT/r/run.err
echo "run rc=$? t=$(( $(date +%s)-T0 ))"; tail -n 25 $OUT/r/run.out
$A/ecocompute validate $OUT/r/run-qwen2-7b-NF4.json > $OUT/r/validate.out 2>&1; echo "validate rc=$?"; cat $OUT/r/validate.out | tail -3
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
