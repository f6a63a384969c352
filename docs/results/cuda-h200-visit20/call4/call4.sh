# Visit 20 call 4: the standing table with the HeldWide build: five seed architectures x
# FP16 / INT8-WO / NF4, tuned, one process.
set -u
mkdir -p $OUT/r
T0=$(date +%s)
cp build/s17/call4.sh $OUT/r/
timeout 420 build/ab17/wide/bench_decode --models qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 --json $OUT/r/decode.jsonl > $OUT/r/decode.md 2> $OUT/r/decode.err
echo "decode rc=$? t=$(( $(date +%s)-T0 ))"; grep "^| " $OUT/r/decode.md | cut -d'|' -f2-7
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
