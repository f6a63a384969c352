set -u
timeout 150 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure|rel_error|Expected|Which is|mma" $OUT/tests.log | head -16
for p in qwen2-7b qwen2-0.5b; do
timeout 120 build/h-cuda/bench/bench_kernels --preset $p --formats nf4 --json $OUT/k-$p.jsonl > $OUT/k-$p.md 2>&1; echo "k $p rc=$?"; grep -E "FAIL" $OUT/k-$p.md | head -3
python3 - $OUT/k-$p.jsonl <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for role in ("qkv","o","gate_up","down"):
  rs=sorted([r for r in rows if r["role"]==role], key=lambda r:r["seconds"])
  o=[r for r in rs if not r["variant"].startswith("mma")]
  print(role, "simt", f'{o[0]["variant"]}:{o[0]["seconds"]*1e6:.2f}', "| mma", " ".join(f'{r["variant"]}:{r["seconds"]*1e6:.1f}' for r in rs if r["variant"].startswith("mma")))
PY
done
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-75)}'; }
for b in E A; do
echo "== $b"
timeout 100 build/ab/$b-bench_decode --models qwen2-7b --formats nf4 --tokens 256 > $OUT/d-$b.md 2>&1; show $OUT/d-$b.md
done
