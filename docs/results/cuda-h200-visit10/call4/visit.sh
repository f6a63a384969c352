set -u
build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats f16,int8-wo,nf4 --json $OUT/k7.jsonl > $OUT/k7.md 2>&1; grep -E "^\| (f16|int8|nf4)" $OUT/k7.md | cut -c1-150
python3 - <<'P'
import json,os
rows=[json.loads(l) for l in open(os.environ['OUT']+'/k7.jsonl')]
for f in ['f16','int8-wo','nf4']:
  for role in ['qkv','o','down','gate_up']:
    r=[x for x in rows if x['format']==f and x['role']==role]
    best_p=min((x for x in r if 'b' not in x['variant'].split('-')[0]), key=lambda x:x['seconds'])
    best_b=min((x for x in r if 'b' in x['variant'].split('-')[0]), key=lambda x:x['seconds'])
    print(f, role, 'best p/g', best_p['variant'], round(best_p['seconds']*1e6,2), 'best b', best_b['variant'], round(best_b['seconds']*1e6,2))
P
