set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
mkdir -p $OUT/reports
EC=build/h-cuda/bin/ecocompute
for rep in 1 2; do
for m in qwen2-0.5b qwen2-7b; do
timeout 130 $EC run --model $m --precision INT8-WO --backend cuda --iterations 10 --warmup 2 --new-tokens 256 --idle-seconds 2 --hz 100 --no-quality --out $OUT/reports/$m-int8wo-r$rep.json > $OUT/run-$m-r$rep.log 2>&1; echo "run $m r$rep rc=$?"; grep -E "^\| (FP16|INT8)" $OUT/run-$m-r$rep.log
done
done
