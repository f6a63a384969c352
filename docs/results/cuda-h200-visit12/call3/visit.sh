set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure|rel_error|Expected|Which is|mma" $OUT/tests.log | head -16
for p in qwen2-7b qwen2-0.5b; do
timeout 120 build/h-cuda/bench/bench_kernels --preset $p --formats nf4,nf4-dq --json $OUT/k-$p.jsonl > $OUT/k-$p.md 2>&1; echo "k $p rc=$?"; grep -E "FAIL" $OUT/k-$p.md | head -3
python3 - $OUT/k-$p.jsonl <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for fmt in ("nf4","nf4-dq"):
  for role in ("qkv","o","gate_up","down"):
    rs=sorted([r for r in rows if r["format"]==fmt and r["role"]==role], key=lambda r:r["seconds"])
    m=[r for r in rs if r["variant"].startswith("mma")]; o=[r for r in rs if not r["variant"].startswith("mma")]
    f=lambda r: f'{r["variant"]}:{r["seconds"]*1e6:.2f}us err {r["rel_err"]:.1e}' if r else "-"
    print(fmt, role, "simt", f(o[0] if o else None), "| mma", f(m[0] if m else None))
PY
done
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-75)}'; }
for rep in 1 2; do
for b in E A; do
f=nf4
echo "== $b rep $rep"
timeout 100 build/ab/$b-bench_decode --models qwen2-0.5b,qwen2-7b --formats $f --tokens 256 > $OUT/d-$rep-$b.md 2>&1; show $OUT/d-$rep-$b.md
done
done
