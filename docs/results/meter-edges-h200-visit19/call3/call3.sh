# Visit 19 call 3: aligned counter edges with the tail taken off at the counter's own next-period
# power (after call 2 showed instant power misjudges short steps), against plain edges; phases now
# carry temperature and clocks, to see whether aligned runs' pauses cool the card.
set -u
mkdir -p $OUT/r
A=build/ab16
T0=$(date +%s)
cp build/s16/call3.sh build/s16/summ.py $OUT/r/
run() {  # name model precision edges iterations
  timeout 150 $A/ecocompute run --model $2 --precision $3 --no-quality --new-tokens 1024 --iterations $5 --warmup 1 --hz 100 --idle-seconds 1 --counter-edges $4 --out $OUT/r/$1.json > $OUT/r/$1.log 2>&1
  echo "$1 rc=$? t=$(( $(date +%s)-T0 ))"
  python3 build/s16/summ.py $OUT/r/$1.json
}
run p05-1-aligned qwen2-0.5b FP16 aligned 10
run p05-1-plain qwen2-0.5b FP16 plain 10
run p05-2-aligned qwen2-0.5b FP16 aligned 10
run p05-2-plain qwen2-0.5b FP16 plain 10
run p05-3-aligned qwen2-0.5b FP16 aligned 10
run p15-1-aligned qwen2-1.5b FP16 aligned 8
run p15-1-plain qwen2-1.5b FP16 plain 8
run p15-2-aligned qwen2-1.5b FP16 aligned 8
run n3-aligned qwen2.5-3b NF4 aligned 5
$A/ecocompute validate $OUT/r/n3-aligned.json > $OUT/r/validate.log 2>&1; echo "validate rc=$?"; tail -1 $OUT/r/validate.log
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
