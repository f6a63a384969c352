#!/usr/bin/env bash
# Where the NF4 decode GEMV's time and instructions go, in one command on the GPU machine:
#   probe  bench_nf4_probe: every resident variant's load / lookup / math / full parts at
#          qwen2-7b's gate_up and down (µs, % of the copy bandwidth measured in the same run);
#   ncu    Nsight Compute's count of warp instructions executed (smsp__inst_executed.sum) by each
#          listed variant's full dot, per 512 bytes of NF4 codes: the figure of
#          docs/results/decode-h200.md, "What holds NF4 back" (r2p-u2 137.1, r2p-flat-u2 127.8 at
#          gate_up), with the DRAM bytes it read over the codes' bytes.
# then one table (also $OUT/summary.md; every output in $OUT/nf4_profile.tgz).
#   bench/device/nf4_profile.sh [BUILD_DIR]    STAGES="probe ncu"
#   GATE_UP="r2p-u2 r2p-flat-u2 r2p-whole" DOWN="r2p-u2 r2p-dbuf-u2"  (the probe has no -l2pf)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-build/static}" && pwd)
PROBE="$B/bench/bench_nf4_probe"
OUT=${OUT:-$PWD/out}
STAGES=${STAGES:-"probe ncu"}
GATE_UP=${GATE_UP:-"r2p-u2 r2p-flat-u2 r2p-whole"}
DOWN=${DOWN:-"r2p-u2 r2p-dbuf-u2"}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# shellcheck source=bench/device/return_archive.sh
. "$HERE/return_archive.sh"
return_archive nf4_profile
mkdir -p "$OUT/ncu"
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }

for stage in $STAGES; do
  case $stage in
    probe)
      timeout 240 "$PROBE" --reps 20 >"$OUT/probe.md" 2>"$OUT/probe.err"
      echo "bench_nf4_probe exit $? at $(elapsed) s"
      ;;
    ncu)
      command -v ncu >/dev/null || { echo "ncu: not on this machine"; continue; }
      for role in gate_up down; do
        configs=$GATE_UP
        [ "$role" = down ] && configs=$DOWN
        for cfg in $configs; do
          # The third GEMV launch (two warm-ups), the production dot, only the counters needed.
          timeout 120 ncu \
            --metrics smsp__inst_executed.sum,dram__bytes_read.sum,gpu__time_duration.sum \
            -k regex:gemv -s 2 -c 1 --csv --print-units base \
            --log-file "$OUT/ncu/$role-$cfg.csv" \
            "$PROBE" --role "$role" --config "$cfg" --part full --reps 2 >/dev/null 2>&1
          echo "ncu $role $cfg exit $? at $(elapsed) s"
        done
      done
      ;;
  esac
done

python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import csv, glob, os, sys
out = sys.argv[1]
# The probe's shapes are qwen2-7b's: gate_up 2 x 18,944 rows of 3,584 features, down 3,584 rows
# of 18,944; NF4 codes are half a byte a weight.
codes = {"gate_up": 2 * 18944 * 3584 // 2, "down": 3584 * 18944 // 2}
print("| role | variant | warp instructions | per 512 B of codes | DRAM bytes / code bytes "
      "| µs under ncu |")
print("|---|---|---:|---:|---:|---:|")
for path in sorted(glob.glob(f"{out}/ncu/*.csv")):
    role, cfg = os.path.basename(path)[:-4].split("-", 1)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own ==PROF== lines are not CSV
    metrics = {}
    for row in csv.DictReader(lines):
        name, value = row.get("Metric Name"), row.get("Metric Value", "")
        if name:
            try:
                metrics[name] = float(value.replace(",", ""))
            except ValueError:
                pass
    inst = metrics.get("smsp__inst_executed.sum")
    if inst is None:
        print(f"| {role} | {cfg} | no counters in {os.path.basename(path)} | | | |")
        continue
    dram = metrics.get("dram__bytes_read.sum")
    ns = metrics.get("gpu__time_duration.sum")
    ratio = dram / codes[role] if dram else float("nan")
    us = ns / 1e3 if ns else float("nan")
    print(f"| {role} | {cfg} | {inst:,.0f} | {inst / (codes[role] / 512):.1f} | {ratio:.3f} "
          f"| {us:.2f} |")
PY
[ -s "$OUT/probe.md" ] && tail -n 30 "$OUT/probe.md"
echo "total $(elapsed) s"
