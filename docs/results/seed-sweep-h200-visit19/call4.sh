# Visit 19 call 4: the seed architectures again, metered with aligned counter edges (34247d3), and
# HF transformers eager FP16 in the same call. The sweep resumes in call 5 if the limit stops it.
set -u
mkdir -p $OUT/r
A=build/ab16
T0=$(date +%s)
cp build/s16/call4.sh $OUT/r/
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv; $A/ecocompute info; } > $OUT/r/machine.txt 2>&1
CONFIGS=/tmp/ec_hf_configs
$A/bench_decode --models qwen2-0.5b,qwen2-7b --formats none --configs-dir $CONFIGS > /dev/null 2>&1
timeout 140 python3 bench/hf_peer.py --configs $CONFIGS --models qwen2-0.5b,qwen2-7b --tokens 256 --json $OUT/r/hf.jsonl > $OUT/r/hf.md 2>&1; echo "hf rc=$? t=$(( $(date +%s)-T0 ))"; cat $OUT/r/hf.md
timeout 400 $A/ecocompute sweep --models qwen2-7b,qwen2-0.5b,qwen2.5-3b,tinyllama-1.1b,qwen2-1.5b --precisions INT8,NF4 --repeats 1 --new-tokens 1024 --iterations 3 --warmup 1 --backend cuda --out $OUT/r/sweep --format md -- --idle-seconds 2 --hz 100 --no-quality > $OUT/r/sweep.log 2>&1; echo "sweep rc=$? t=$(( $(date +%s)-T0 ))"
tail -16 $OUT/r/sweep.log
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
