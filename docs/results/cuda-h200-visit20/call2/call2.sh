# Visit 20 call 2: (a) each GEMV block's phases inside the decode graph (trace build: %globaltimer
# and clock64 stamps at entry, before/after the PDL wait, x staged, first step dotted, block done);
# (b) 7B FP16 / INT8-WO / NF4 with the HeldWide build in one process, for the ratios.
set -u
mkdir -p $OUT/r/tr
T0=$(date +%s)
cp build/s17/call2.sh $OUT/r/
timeout 150 build/ab17/trace/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo --tokens 64 --iters 1 --trace-dir $OUT/r/tr > $OUT/r/trace.md 2> $OUT/r/trace.err
echo "trace rc=$? t=$(( $(date +%s)-T0 ))"; grep "^trace" $OUT/r/trace.err; grep "^| qwen" $OUT/r/trace.md | cut -d'|' -f2-6
timeout 200 build/ab17/wide/bench_decode --models qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/r/d7.md 2> $OUT/r/d7.err
echo "d7 rc=$? t=$(( $(date +%s)-T0 ))"; grep "^| qwen" $OUT/r/d7.md | cut -d'|' -f2-7
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
