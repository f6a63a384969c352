set -u
mkdir -p $OUT/r
A=build/ab
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 60 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-90)}'; }
for rv in 1-new 1-base 2-new; do v=${rv#*-}; timeout 115 $A/bench_decode_$v --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4,nf4-dq --tokens 256 --json $OUT/r/d-$rv.jsonl > $OUT/r/d-$rv.md 2>&1; echo "decode $rv rc=$? t=$(( $(date +%s)-T0 ))"; grep "copy ceiling" $OUT/r/d-$rv.md | head -1; show $OUT/r/d-$rv.md; done
cp build/s12/call4.sh build/s12/new.patch $OUT/r/
timeout 100 $A/ecocompute_new run --model qwen2-7b --precision NF4 --iterations 3 --warmup 1 --hz 100 --out $OUT/r/energy-7b-nf4.json > $OUT/r/run.log 2>&1; echo "run rc=$? t=$(( $(date +%s)-T0 ))"; tail -15 $OUT/r/run.log
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
