set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
timeout 120 build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats f16,int8-wo --json $OUT/k7.jsonl > $OUT/k7.md 2>&1; echo "k7 rc=$?"; grep -E "^\| (f16|int8)" $OUT/k7.md | cut -c1-120
python3 - $OUT/k7.jsonl <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for fmt in ("f16","int8-wo"):
  for role in ("qkv","o","gate_up","down","lm_head"):
    rs=sorted([r for r in rows if r["format"]==fmt and r["role"]==role], key=lambda r:r["seconds"])
    if rs: print(fmt, role, " ".join(f'{r["variant"]}:{r["seconds"]*1e6:.1f}' for r in rs[:6]))
PY
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-90)}'; }
timeout 200 build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d.jsonl > $OUT/d.md 2>&1; echo "decode rc=$?"; show $OUT/d.md
