set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
mkdir -p $OUT/reports
EC=build/h-cuda/bin/ecocompute
for rep in 1 2; do
timeout 100 $EC run --model qwen2-0.5b --precision INT8-WO --backend cuda --iterations 10 --warmup 2 --new-tokens 1024 --idle-seconds 2 --hz 100 --no-quality --out $OUT/reports/0.5b-int8wo-1024-r$rep.json > $OUT/run-1024-r$rep.log 2>&1; echo "run 1024 r$rep rc=$?"; grep -vE "loading|idle baseline|warmup" $OUT/run-1024-r$rep.log
done
timeout 60 $EC run --model qwen2-0.5b --precision INT8-WO --backend cuda --iterations 3 --warmup 1 --new-tokens 256 --idle-seconds 1 --hz 100 --no-quality --out $OUT/reports/0.5b-int8wo-256.json > $OUT/run-256.log 2>&1; echo "run 256 rc=$?"; grep -vE "loading|idle baseline|warmup" $OUT/run-256.log
