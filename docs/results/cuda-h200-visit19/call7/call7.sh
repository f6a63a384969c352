# Visit 19 call 7: bench_decode's energy column through the tool's meter (aligned edges) instead of
# raw counter reads (call 6 read 0.5B INT8-WO at 566 W over 0.13 s windows).
set -u
mkdir -p $OUT/r
cp build/s16/call7.sh $OUT/r/
timeout 100 build/ab16/bench_decode --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 --iters 3 --json $OUT/r/decode.jsonl > $OUT/r/decode.md 2> $OUT/r/decode.err; echo "rc=$?"
cat $OUT/r/decode.md; python3 -c "
import json,sys
for l in open(sys.argv[1]): r=json.loads(l); print(r['format'], 'J', [round(x,1) for x in r['joules']], 'W', [round(x) for x in r['avg_power_w']], 'chained J', [round(x,1) for x in r['chained_joules']])" $OUT/r/decode.jsonl
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
