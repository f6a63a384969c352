set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 60 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -6
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-100)}'; }
run() { # tag binary tune models formats limit
  EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
i=0
for b in h4 new h4 new; do i=$((i+1)); run lq$i-$b $b 1 qwen2-7b int8-wo,nf4 70; done
for b in base new; do i=$((i+1)); run lf$i-$b $b 1 qwen2-7b fp16 45; done
for b in h4 h4; do i=$((i+1)); run s$i-$b $b 1 qwen2-0.5b fp16,int8-wo,nf4 40; done
cp build/s13/call4.sh $OUT/r/
timeout 230 $A/ecocompute_new run --model qwen2-7b --precision NF4 --iterations 3 --warmup 1 --hz 100 --out $OUT/r/energy-7b-nf4.json > $OUT/r/run.log 2>&1; echo "run rc=$? t=$(( $(date +%s)-T0 ))"; tail -15 $OUT/r/run.log
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
