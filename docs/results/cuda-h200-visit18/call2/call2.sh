set -u
mkdir -p $OUT/r
A=build/ab15
T0=$(date +%s)
cp build/s15/call2.sh $OUT/r/
EC_CUDA_TUNE_LOG=1 timeout 500 $A/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/d-all.jsonl > $OUT/r/d-all.md 2>$OUT/r/tune-all.log; echo "all rc=$? t=$(( $(date +%s)-T0 ))"
grep -E '^\| qwen|^\| tiny' $OUT/r/d-all.md | awk -F'|' '{print $2, $3, $5, $7, $10, $12}' | sed 's/cuda-f32acc-//'
grep -E "together|chosen" $OUT/r/tune-all.log | grep -v chosen | sed 's/^\[cuda tune\] //'
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv 2>&1
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
