set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
for p in qwen2-0.5b qwen2-1.5b; do
timeout 60 build/bench_kernels_deep --preset $p --formats f16,int8-wo --json $OUT/k-$p.jsonl > $OUT/k-$p.md 2>&1; echo "k $p rc=$?"
python3 - $OUT/k-$p.jsonl <<'PY'
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
for fmt in ("f16","int8-wo"):
  for role in ("qkv","o","gate_up","down"):
    rs=sorted([r for r in rows if r["format"]==fmt and r["role"]==role], key=lambda r:r["seconds"])
    deep=[r for r in rs if "-u8" in r["variant"] or "-u16" in r["variant"]]
    other=[r for r in rs if r not in deep]
    print(fmt, role, "best", f'{other[0]["variant"]}:{other[0]["seconds"]*1e6:.2f}', "best deep", f'{deep[0]["variant"]}:{deep[0]["seconds"]*1e6:.2f}' if deep else "-")
PY
done
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-90)}'; }
for rep in 1 2; do
for b in build/h-cuda/bench/bench_decode build/bench_decode_deep; do
echo "== $b rep $rep"
timeout 80 $b --models qwen2-0.5b,qwen2-1.5b --formats fp16,int8-wo --tokens 256 > $OUT/d-$rep-$(basename $b).md 2>&1; show $OUT/d-$rep-$(basename $b).md
done
done
