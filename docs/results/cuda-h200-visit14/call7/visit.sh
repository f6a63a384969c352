set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 60 $A/test_engine_cuda_new --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/r/tests.log | head -8
timeout 50 $A/bench_kernels_new --preset qwen2-7b --formats f16 --json $OUT/r/k7.jsonl > $OUT/r/k7.md 2>&1; echo "kernels rc=$?"; grep "^| f16" $OUT/r/k7.md | cut -c1-110; python3 -c "
import json
rows=[json.loads(l) for l in open('$OUT/r/k7.jsonl')]
for role in ('o','down'):
    r=sorted([x for x in rows if x['role']==role], key=lambda x:x['seconds'])
    print(role, ' '.join('%s=%.1f' % (x['variant'], x['seconds']*1e6) for x in r[:8]))
"
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-75)}'; }
for v in new base new; do timeout 35 $A/bench_decode_$v --models qwen2-7b --formats fp16 --tokens 256 >> $OUT/r/d7-$v.md 2>&1; echo "7b $v rc=$?"; show $OUT/r/d7-$v.md | tail -1; done
timeout 20 $A/bench_decode_new --models qwen2-0.5b --formats fp16 --tokens 256 > $OUT/r/d05-new.md 2>&1; echo "0.5b new rc=$?"; show $OUT/r/d05-new.md
cp build/s11/call7.sh build/ab/gx.patch $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
