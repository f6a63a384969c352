# Visit 20 call 3: trace build v2: one more stamp (6) between x staged and the first dot, taken
# once thread 0 holds the first preloaded weight register: were the weights there?
set -u
mkdir -p $OUT/r/tr
T0=$(date +%s)
cp build/s17/call3.sh $OUT/r/
timeout 150 build/ab17/trace/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo --tokens 64 --iters 1 --trace-dir $OUT/r/tr > $OUT/r/trace.md 2> $OUT/r/trace.err
echo "trace rc=$? t=$(( $(date +%s)-T0 ))"; grep "^trace" $OUT/r/trace.err; grep "^| qwen" $OUT/r/trace.md | cut -d'|' -f2-6
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
