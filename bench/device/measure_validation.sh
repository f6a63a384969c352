#!/usr/bin/env bash
# The marker protocol and the window rule on a GPU, in one run of under ten minutes:
#  1. Hugging Face transformers FP16 (eager) through `measure --marks` with the reference client,
#     next to `ecocompute run` FP16 on the same architectures, and its J/1k tok against the
#     client's own reading of the energy counter around the same generate calls (goal: within 2 %);
#  2. five processes of `run --model qwen2-0.5b --precision INT8` under the window rule: the SD of
#     their energy vs FP16 (goal: 0.3 pp) and no short-window note;
#  3. each phase's counter against its cross-checks (the driver's ~50 Hz samples, instant power).
# One table at the end ($OUT/summary.md); reports, logs and the table in
# $OUT/measure_validation.tgz.
#   bench/device/measure_validation.sh [BUILD_DIR]      (default build/static; `make static`)
#   HF_MODELS=qwen2-0.5b,qwen2-1.5b HF_ITER=5 PROCESSES=5 BUDGET_S=540
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-build/static}
EC="$B/bin/ecocompute"
OUT=${OUT:-$PWD/out}
# shellcheck source=bench/device/return_archive.sh
. "$HERE/return_archive.sh"
return_archive measure_validation
R="$OUT/reports"
mkdir -p "$R"
HF_MODELS=${HF_MODELS:-qwen2-0.5b,qwen2-1.5b}
HF_ITER=${HF_ITER:-5}
PROCESSES=${PROCESSES:-5}
BUDGET_S=${BUDGET_S:-540}  # stages that would start after this many seconds are skipped
CONFIGS=${CONFIGS:-/tmp/ec_hf_configs}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 EC_NO_PROGRESS=1
START=$(date +%s)
left() { echo $(( BUDGET_S - ($(date +%s) - START) )); }
log() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$OUT/stages.log"; }

{ nvidia-smi --query-gpu=name,driver_version,power.draw,temperature.gpu --format=csv; "$EC" info; } \
  >"$OUT/machine.txt" 2>&1
[ -d "$CONFIGS" ] || "$B/bench/bench_decode" --models "$HF_MODELS" --formats none \
  --configs-dir "$CONFIGS" >/dev/null 2>&1

# 2. Five processes of 0.5B INT8 with its FP16 baseline (the first also gives ours FP16 at 0.5B).
for i in $(seq 1 "$PROCESSES"); do
  [ "$(left)" -gt 60 ] || { log "skipped INT8 process $i: budget"; continue; }
  timeout 120 "$EC" run --model qwen2-0.5b --precision INT8 --no-quality --idle-seconds 1 \
    --out "$R/run-0.5b-int8-$i.json" >"$OUT/run-0.5b-int8-$i.log" 2>&1
  log "run qwen2-0.5b INT8 process $i: exit $?"
done

# 1. HF eager FP16 through the marks, then ours FP16 on the same architecture.
for m in ${HF_MODELS//,/ }; do
  [ "$(left)" -gt 90 ] || { log "skipped HF $m: budget"; continue; }
  timeout 200 "$EC" measure --marks --precision FP16 --label fp16 --warmup 1 --iterations "$HF_ITER" \
    --idle-s 1 --out "$R/hf-$m-fp16.json" -- python3 clients/python/hf_transformers_marks.py \
    --model "$CONFIGS/$m.json" --precisions fp16 --warmup 1 --iterations "$HF_ITER" \
    --self-check "$R/hf-$m-fp16.check.jsonl" >"$OUT/hf-$m.log" 2>&1
  log "measure --marks HF $m FP16: exit $?"
  "$EC" validate "$R/hf-$m-fp16.json" >>"$OUT/hf-$m.log" 2>&1
  log "validate HF $m: exit $?"
  if [ "$m" != qwen2-0.5b ] && [ "$(left)" -gt 45 ]; then
    timeout 120 "$EC" run --model "$m" --precision FP16 --no-quality --idle-seconds 1 \
      --out "$R/run-$m-fp16.json" >"$OUT/run-$m-fp16.log" 2>&1
    log "run $m FP16: exit $?"
  fi
done

# 3. A long steady decode for the cross-check (7B FP16, where the gap was 6.5 % at 10 Hz).
if [ "$(left)" -gt 60 ]; then
  timeout 150 "$EC" run --model qwen2-7b --precision FP16 --no-quality --idle-seconds 1 \
    --iterations 3 --out "$R/run-qwen2-7b-fp16.json" >"$OUT/run-7b-fp16.log" 2>&1
  log "run qwen2-7b FP16: exit $?"
fi

# 4. The same 0.5B INT8 run without the rule (one generation per iteration, as before it): what
# the rule changes in J/1k tok (two shared counter reads per extra generation) and in the spread.
if [ "$(left)" -gt 50 ]; then
  timeout 100 "$EC" run --model qwen2-0.5b --precision INT8 --no-quality --idle-seconds 1 \
    --min-window-periods 0 --generations-per-window 1 --out "$R/norule-0.5b-int8.json" \
    >"$OUT/norule-0.5b-int8.log" 2>&1
  log "run qwen2-0.5b INT8 without the window rule: exit $?"
fi

python3 - "$R" "$HF_MODELS" <<'PY' | tee "$OUT/summary.md"
import glob, json, os, statistics, sys
R, models = sys.argv[1], sys.argv[2].split(",")

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def fmt(x, spec=".2f", unit=""):
    return "n/a" if x is None else f"{x:{spec}}{unit}"

rows = []  # (what, figure, goal, verdict)
def row(what, figure, goal="", ok=None):
    rows.append((what, figure, goal, "" if ok is None else ("met" if ok else "NOT met")))

def gens(side):
    g = [it.get("generations", 1) for it in side["iterations"]]
    return f"{min(g)}–{max(g)}" if g else "n/a"

def phase_gaps(report, label):
    for side_name, side in (("FP16", report.get("baseline")), (report["workload"]["precision"], report)):
        if not side:
            continue
        for p in side["phases"]:
            t = p.get("telemetry", {})
            if p["name"] == "idle":
                continue
            row(f"{label} {side_name} {p['name']}: counter vs driver samples / vs instant power",
                f"{fmt(t.get('counter_vs_power_samples_pct'), '+.2f', ' %')} / "
                f"{fmt(t.get('counter_vs_instant_pct'), '+.2f', ' %')} over {p['seconds']:.1f} s")

# HF through the marks against the client's own counter reading, and ours on the same model.
ours = {}
first_int8 = load(os.path.join(R, "run-0.5b-int8-1.json"))
if first_int8 and first_int8.get("baseline"):
    ours["qwen2-0.5b"] = first_int8["baseline"]
for m in models:
    r = load(os.path.join(R, f"run-{m}-fp16.json"))
    if r:
        ours[m] = r
for m in models:
    hf = load(os.path.join(R, f"hf-{m}-fp16.json"))
    checks = []
    try:
        checks = [json.loads(l) for l in open(os.path.join(R, f"hf-{m}-fp16.check.jsonl"))]
    except OSError:
        pass
    if not hf:
        row(f"HF eager FP16 {m} via measure --marks", "no report (see hf-" + m + ".log)")
        continue
    res = hf["results"]
    o = ours.get(m)
    ours_r = o["results"] if o else {}
    row(f"{m} FP16, HF eager via marks / ours (run), one meter",
        f"{fmt(res['throughput_tokens_per_s'], '.1f')} / {fmt(ours_r.get('throughput_tokens_per_s'), '.1f')} tok/s; "
        f"{fmt(res['energy_per_token_mj'], '.1f')} / {fmt(ours_r.get('energy_per_token_mj'), '.1f')} J/1k tok; "
        f"generations per iteration {gens(hf)} / {gens(o) if o else 'n/a'}")
    e = [c["energy_j"] for c in checks]
    if checks and all(x is not None for x in e) and res.get("energy_per_token_mj"):
        independent = sum(e) / sum(c["tokens"] for c in checks) * 1000
        gap = (res["energy_per_token_mj"] / independent - 1) * 100
        row(f"{m} HF: report's J/1k tok against the client's own counter reads",
            f"{res['energy_per_token_mj']:.1f} vs {independent:.1f} ({gap:+.2f} %)", "≤ 2 %",
            abs(gap) <= 2.0)
    phase_gaps(hf, f"{m} HF")

# Five processes of 0.5B INT8: the spread of vs FP16.
deltas, notes, g = [], [], []
for path in sorted(glob.glob(os.path.join(R, "run-0.5b-int8-*.json"))):
    r = load(path)
    if not r:
        continue
    deltas.append(r["results"]["vs_fp16_energy_pct"])
    notes += [n for n in (r["results"].get("note"), r["baseline"]["results"].get("note")) if n]
    g.append(f"{gens(r['baseline'])}/{gens(r)}")
if deltas:
    sd = statistics.stdev(deltas) if len(deltas) > 1 else None
    row(f"qwen2-0.5b INT8 vs FP16 over {len(deltas)} processes",
        ", ".join(f"{d:+.2f}" for d in deltas) + f" %; SD {fmt(sd, '.2f', ' pp')}", "SD ≤ 0.3 pp",
        sd is not None and sd <= 0.3 and len(deltas) >= 5)
    row("qwen2-0.5b generations per iteration (FP16/INT8), each process", ", ".join(g))
    row("short-window notes in those reports", str(len(notes)) + (f": {notes[0][:120]}…" if notes else ""),
        "none", not notes)
    phase_gaps(first_int8, "qwen2-0.5b")
norule = load(os.path.join(R, "norule-0.5b-int8.json"))
if norule and first_int8:
    def j(r):
        return f"{r['baseline']['results']['energy_per_token_mj']:.1f} / {r['results']['energy_per_token_mj']:.1f}"
    row("qwen2-0.5b FP16 / INT8 J/1k tok, the rule (process 1) vs one generation per iteration",
        f"{j(first_int8)} vs {j(norule)}; vs FP16 {first_int8['results']['vs_fp16_energy_pct']:+.2f} % vs "
        f"{norule['results']['vs_fp16_energy_pct']:+.2f} %")
for name in ("run-qwen2-1.5b-fp16.json", "run-qwen2-7b-fp16.json"):
    r = load(os.path.join(R, name))
    if r:
        phase_gaps(r, name[4:-10])

print("| check | figure | goal | verdict |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(x.replace("|", "/") for x in r) + " |")
PY
log "done"
