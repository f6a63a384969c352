# Visit 19 call 1: GPU tests (feb76eb's refactor, the clamp test), then the meter's aligned counter
# edges against plain ones (alternating processes, per-iteration spread), and whether `run`'s tuner
# now gives the same FP16 0.5B baseline in every process (bd4480d).
set -u
mkdir -p $OUT/r
A=build/ab16
T0=$(date +%s)
cp build/s16/call1.sh build/s16/summ.py $OUT/r/
nvidia-smi --query-gpu=name,driver_version,power.draw,temperature.gpu,clocks.sm --format=csv > $OUT/r/smi.txt 2>&1
timeout 150 $A/test_engine_cuda > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; tail -3 $OUT/r/tests.log
run() {  # name model edges iterations
  timeout 120 $A/ecocompute run --model $2 --precision FP16 --no-quality --new-tokens 1024 --iterations $4 --warmup 1 --hz 100 --idle-seconds 1 --counter-edges $3 --out $OUT/r/$1.json > $OUT/r/$1.log 2>&1
  echo "$1 rc=$? t=$(( $(date +%s)-T0 ))"
  python3 build/s16/summ.py $OUT/r/$1.json
}
for i in 1 2; do
  run p05-$i-plain qwen2-0.5b plain 10
  run p05-$i-aligned qwen2-0.5b aligned 10
done
for i in 1 2; do
  run p15-$i-plain qwen2-1.5b plain 8
  run p15-$i-aligned qwen2-1.5b aligned 8
done
run p7-1-aligned qwen2-7b aligned 4
run p7-1-plain qwen2-7b plain 4
$A/ecocompute validate $OUT/r/p15-1-aligned.json > $OUT/r/validate.log 2>&1; echo "validate rc=$?"; tail -1 $OUT/r/validate.log
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
