set -u
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
P=build/h-cuda/bench/bench_nf4_probe
cuobjdump -sass $P > /tmp/all.sass 2>&1
awk -v out=$OUT/sass-full-r2-u2.txt -v pat="PartE3E.*Li2ELNS[0-9A-Za-z_]*GemvPipelineE0ELi2E" '/Function :/{keep = ($0 ~ pat)} keep{print > out}' /tmp/all.sass
build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats nf4,nf4-dq --json /tmp/k7.jsonl > $OUT/k7.md 2>&1; grep -E "^\| (nf4|nf4-dq|int8-wo) \|" $OUT/k7.md | cut -c1-150
python3 -c "
import json
rows={}
for l in open('/tmp/k7.jsonl'):
    d=json.loads(l)
    if d['format']=='nf4' and d['role'] in ('gate_up','down'): rows.setdefault(d['role'],[]).append('%s %.1f'%(d['variant'],d['seconds']*1e6))
for k,v in rows.items(): print(k, ' | '.join(v))
" 2>&1 | head
build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-250
