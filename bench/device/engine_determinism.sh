#!/usr/bin/env bash
# The CUDA engine's kernel choice on a GPU, in one command of at most 10 minutes:
#   tune      `ecocompute tune` for the five seed architectures × FP16, INT8 (LLM.int8()), INT8-WO,
#             NF4, NF4-DQ into one table, $OUT/tuning/<gpu>-cc<major>.<minor>.json (the file name
#             data/tuning/ ships it under);
#   tests     the CUDA kernels and engine against their CPU twins (test_engine_cuda);
#   runs      five separate processes of `run --model qwen2-7b --precision NF4` and five of
#             `run --model qwen2-0.5b --precision INT8`: their kernel_variant strings (baseline and
#             precision) compared byte for byte, and their tok/s spread (max/min − 1);
#   standing  bench_decode over the five architectures × FP16, INT8-WO, NF4 (tok/s, % of copy);
# then one short table (also $OUT/summary.md; every output in $OUT/engine_determinism.tgz).
#   bench/device/engine_determinism.sh [BUILD_DIR]    STAGES="tune tests runs standing"
#   TABLE=FILE|shipped: the table runs and standing load (default: the one `tune` wrote here, else
#   the table shipped in the binary for this GPU).
# Budget on an H200 (about 8 minutes): tune ≈ 200 s (steps of 5, the median of 5 timings, the
# descent over every variant of every role), tests ≈ 60 s, runs ≈ 150 s (1 warm-up and 5 measured
# iterations of 256 tokens, no quality probe), standing ≈ 60 s. Each stage has its own timeout.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-build/static}" && pwd)
EC="$B/bin/ecocompute"
BENCH="$B/bench"
OUT=${OUT:-$PWD/out}
STAGES=${STAGES:-"tune tests runs standing"}
MODELS=${MODELS:-qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b}
PROCESSES=${PROCESSES:-5}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export EC_NO_PROGRESS=1
# shellcheck source=bench/device/return_archive.sh
. "$HERE/return_archive.sh"
return_archive engine_determinism
mkdir -p "$OUT/tuning" "$OUT/runs"
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv >"$OUT/smi.txt" 2>&1

for stage in $STAGES; do
  # Past the budget a stage is skipped, so that the summary still prints within 10 minutes.
  if [ "$(elapsed)" -gt "${BUDGET_S:-500}" ]; then
    echo "skipping $stage: $(elapsed) s spent"
    continue
  fi
  case $stage in
    tune)
      # One process per architecture: its weights are made once for the five formats. Run from
      # $OUT/tuning so the table gets the file name it ships under, every model adding to it.
      for m in ${MODELS//,/ }; do
        (cd "$OUT/tuning" && timeout 180 "$EC" tune --model "$m" \
          --precision FP16,INT8,INT8-WO,NF4,NF4-DQ >"../tune-$m.md" 2>"../tune-$m.err")
        echo "tune $m exit $? at $(elapsed) s"
      done
      ;;
    tests)
      timeout 150 "$B/tests/test_engine_cuda" >"$OUT/tests.log" 2>&1
      echo "test_engine_cuda exit $? at $(elapsed) s: $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests.log" | tr '\n' ' ')"
      ;;
    runs)
      table=${TABLE:-$(ls "$OUT"/tuning/*.json 2>/dev/null | head -1)}
      [ -z "$table" ] && table=shipped
      flag=()
      [ "$table" != shipped ] && flag=(--tuning-table "$table")
      echo "runs with table: $table" | tee "$OUT/runs/table.txt"
      for spec in qwen2-7b:NF4 qwen2-0.5b:INT8; do
        m=${spec%%:*}; p=${spec##*:}
        for i in $(seq 1 "$PROCESSES"); do
          timeout 90 "$EC" run --model "$m" --precision "$p" "${flag[@]}" --warmup 1 --iterations 5 \
            --new-tokens 256 --no-quality --idle-seconds 0 \
            --out "$OUT/runs/$m-$p-$i.json" >"$OUT/runs/$m-$p-$i.log" 2>&1
          echo "run $m $p $i exit $? at $(elapsed) s"
        done
      done
      ;;
    standing)
      table=${TABLE:-$(ls "$OUT"/tuning/*.json 2>/dev/null | head -1)}
      flag=()
      [ -n "$table" ] && [ "$table" != shipped ] && flag=(--tuning-table "$table")
      timeout 150 "$BENCH/bench_decode" --models "$MODELS" --formats fp16,int8-wo,nf4 --tokens 256 \
        "${flag[@]}" --json "$OUT/standing.jsonl" >"$OUT/standing.md" 2>"$OUT/standing.err"
      echo "standing exit $? at $(elapsed) s"
      ;;
  esac
done

python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import glob, json, os, sys
out = sys.argv[1]
print("| processes | precision | variant strings (baseline / precision) | choice | table | tok/s min–max | spread |")
print("|---|---|---|---|---|---|---|")
for group in ("qwen2-7b-NF4", "qwen2-0.5b-INT8"):
    reports = []
    for f in sorted(glob.glob(f"{out}/runs/{group}-*.json")):
        try:
            reports.append(json.load(open(f)))
        except Exception as e:
            print(f"| {group} | unreadable {os.path.basename(f)}: {e} |")
    if not reports:
        print(f"| {group} | no reports | | | | | |")
        continue
    eng = [r["engine"] for r in reports]
    base = [r.get("baseline", {}).get("engine", {}) for r in reports]
    tps = [r["results"]["throughput_tokens_per_s"] for r in reports]
    btps = [r.get("baseline", {}).get("results", {}).get("throughput_tokens_per_s") for r in reports]
    distinct = f'{len({b.get("kernel_variant") for b in base})} / {len({e["kernel_variant"] for e in eng})}'
    choice = ",".join(sorted({e.get("kernel_variant_choice", "?") for e in eng}))
    tables = {(e.get("tuning_table") or {}).get("sha256", "none")[:12] for e in eng}
    spread = max(tps) / min(tps) - 1
    print(f"| {len(reports)} × {group} | {eng[0]['precision']} | {distinct} | {choice} | {','.join(sorted(tables))} "
          f"| {min(tps):.1f}–{max(tps):.1f} | {spread * 100:.2f} % |")
    if all(btps):
        bs = max(btps) / min(btps) - 1
        print(f"| {len(reports)} × {group} | FP16 baseline | | | | {min(btps):.1f}–{max(btps):.1f} | {bs * 100:.2f} % |")
for group in ("qwen2-7b-NF4", "qwen2-0.5b-INT8"):
    for f in sorted(glob.glob(f"{out}/runs/{group}-1.json"))[:1]:
        r = json.load(open(f))
        print(f"\n{group}: {r.get('baseline', {}).get('engine', {}).get('kernel_variant')}\n{group}: {r['engine']['kernel_variant']}")
rows = []
try:
    rows = [json.loads(l) for l in open(f"{out}/standing.jsonl")]
except OSError:
    pass
if rows:
    print("\n| model | format | tok/s | % of copy | × FP16 (bytes bound) | choice |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        pct = 100 * r["gb_s"] / r["copy_ceiling_gb_s"]
        x = r.get("x_fp16")
        xb = r.get("x_fp16_bytes_bound")
        xs = f"{x:.3f} ({xb:.3f})" if x is not None else "n/a"
        print(f"| {r['model']} | {r['precision']} | {r['tok_s']:.1f} | {pct:.1f} | {xs} | {r.get('kernel_variant_choice')}{' MISMATCH' if r.get('mismatch') else ''} |")
tables = sorted(glob.glob(f"{out}/tuning/*.json"))
for t in tables:
    d = json.load(open(t))
    print(f"\ntable {os.path.basename(t)}: {len(d['entries'])} entries, {d['gpu']['name']} {d['gpu']['compute_capability']}")
    # Which variants the table chose, per format: the ones it never chose are candidates to prune.
    chosen = {}
    for e in d["entries"]:
        chosen.setdefault(e["weight_format"], {}).setdefault(e["variant"], 0)
        chosen[e["weight_format"]][e["variant"]] += 1
    for f, v in sorted(chosen.items()):
        print(f"  {f}: " + ", ".join(f"{k} ×{n}" for k, n in sorted(v.items(), key=lambda kv: -kv[1])))
PY
echo "total $(elapsed) s"
