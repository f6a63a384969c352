#!/usr/bin/env bash
# The whole tool on a GPU machine: `ecocompute run` end to end on the GPU (meter basis, gpu
# arch, CO2e), the sampler's overhead (tok/s at 100 Hz against no meter at all, interleaved), and a full
# `run` of each seed architecture × {FP16, INT8, NF4}; then HF eager FP16 on the same architectures.
#   bench/device/run_suite.sh BUILD_DIR     STAGES="run overhead grid sweep hf" MODELS=... PRECISIONS=...
# The README's headline table (quality included):
#   STAGES="grid hf" MODELS=qwen2-0.5b,qwen2-7b TOKENS=1024 ITER=3 HF_TOKENS=256 bench/device/run_suite.sh B
# The seed sweep stage writes $SWEEP_DIR (default $OUT/seed-sweep); re-running it resumes.
set -u
B=${1:-build/static}
EC="$B/bin/ecocompute"
OUT=${OUT:-$PWD/out}
# Reports and sweep folders live in WORK (many files); OUT gets the summaries and one tarball.
WORK=${WORK:-/tmp/ec_run_suite}
mkdir -p "$OUT" "$WORK/reports"
STAGES=${STAGES:-"run overhead grid hf"}
MODELS=${MODELS:-qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b}
PRECISIONS=${PRECISIONS:-INT8,NF4}
TOKENS=${TOKENS:-256}
ITER=${ITER:-5}
OVER_MODEL=${OVER_MODEL:-qwen2-0.5b}
OVER_REPS=${OVER_REPS:-3}
CONFIGS=/tmp/ec_hf_configs
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1

tok_s() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['throughput_tokens_per_s'])" "$1"; }

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
  echo "--- ldd ecocompute"; ldd "$EC"
  "$EC" info
} >"$OUT/machine.txt" 2>&1
head -20 "$OUT/machine.txt"

for stage in $STAGES; do
  start=$(date +%s)
  case $stage in
    run)
      # The default job on a real model size: backend auto → cuda, meter → NVML counter, CO2e derived.
      "$EC" run --model qwen2-1.5b --precision NF4 --hz 100 --iterations "$ITER" --new-tokens "$TOKENS" \
        --grid-gco2-per-kwh 400 --pue 1.2 --out "$WORK/reports/run-qwen2-1.5b-NF4.json" >"$OUT/run.log" 2>&1
      echo "run exit $?" >>"$OUT/run.log"
      "$EC" validate "$WORK/reports/run-qwen2-1.5b-NF4.json" >>"$OUT/run.log" 2>&1
      python3 - "$WORK/reports/run-qwen2-1.5b-NF4.json" <<'PY' | tee -a "$OUT/run.log"
import json, sys
r = json.load(open(sys.argv[1]))
m = r["meter"]
print("backend", r["engine"]["backend"], "gpu", r["system_under_test"]["gpu"], "arch", r["system_under_test"]["gpu_arch"])
print("basis", r["results"]["basis"], "source", r["measurement_source"], "vs_fp16", r["results"].get("vs_fp16_energy_pct"))
for p in r["phases"][:6]:
    e, x = p.get("energy_j"), p.get("cross_check_energy_j")
    gap = f"{(x / e - 1) * 100:+.2f} %" if e and x else "n/a"
    print("phase", p.get("name"), f"{p.get('seconds', 0):.3f} s", "counter J", e, "trapezoid J", x, "gap", gap)
print("co2e", json.dumps(r.get("co2e")))
print("sampler", json.dumps(m.get("details", {}).get("sampler")))
PY
      ;;
    overhead)
      # Same engine, same tokens: no meter at all against the NVML meter sampling at 100 Hz; interleaved.
      echo "| rep | no meter tok/s | 100 Hz tok/s | ratio |" >"$OUT/overhead.md"
      echo "|---|---|---|---|" >>"$OUT/overhead.md"
      for rep in $(seq 1 "$OVER_REPS"); do
        common=(--model "$OVER_MODEL" --precision FP16 --no-quality --iterations 10 --warmup 2 --new-tokens "$TOKENS" --idle-seconds 0)
        "$EC" run "${common[@]}" --no-meter --out "$WORK/reports/over-none-$rep.json" >>"$OUT/overhead.log" 2>&1
        "$EC" run "${common[@]}" --hz 100 --out "$WORK/reports/over-100hz-$rep.json" >>"$OUT/overhead.log" 2>&1
        a=$(tok_s "$WORK/reports/over-none-$rep.json"); b=$(tok_s "$WORK/reports/over-100hz-$rep.json")
        echo "| $rep | $a | $b | $(python3 -c "print(f'{$b/$a:.4f}')") |" >>"$OUT/overhead.md"
      done
      cat "$OUT/overhead.md"
      ;;
    grid)
      # One process per model: its precisions share one FP16 baseline and one model load; the run
      # writes grid-MODEL-<precision>.json per precision.
      for model in ${MODELS//,/ }; do
        timeout "${T_GRID:-420}" "$EC" run --model "$model" --precision "$PRECISIONS" --iterations "$ITER" \
          --new-tokens "$TOKENS" --warmup 1 --idle-seconds 3 --hz 100 --out "$WORK/reports/grid-$model.json" \
          >>"$OUT/grid.log" 2>&1
        echo "$model $PRECISIONS exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/grid.log"
      done
      ;;
    sweep)
      # The seed sweep: every seed architecture × FP16/INT8/NF4 × 3 independent replicates (a fresh
      # process, model load and FP16 baseline each); resumable, so a second invocation finishes it.
      SWEEP_DIR=${SWEEP_DIR:-$WORK/seed-sweep}
      timeout "${T_SWEEP:-480}" "$EC" sweep --models "$MODELS" --precisions FP16,INT8,NF4 --repeats "${REPEATS:-3}" \
        --new-tokens "$TOKENS" --iterations "${SWEEP_ITER:-3}" --warmup 1 --backend cuda ${GPUS:+--gpus "$GPUS"} \
        --out "$SWEEP_DIR" --format md -- --idle-seconds 2 --hz 100 ${SWEEP_RUN_ARGS:-} >>"$OUT/sweep.log" 2>&1
      echo "sweep exit $?" >>"$OUT/sweep.log"
      tail -25 "$OUT/sweep.log"
      tar -czf "$OUT/seed-sweep.tgz" -C "$(dirname "$SWEEP_DIR")" "$(basename "$SWEEP_DIR")"
      ;;
    pair)
      # The same small sweep on one GPU, then on two: cells run concurrently, one child per GPU.
      for gpus in 0 0,1; do
        t=$(date +%s.%N)
        "$EC" sweep --models qwen2-0.5b,qwen2-1.5b --precisions INT8,NF4 --repeats 2 --new-tokens "$TOKENS" \
          --iterations 3 --warmup 1 --backend cuda --gpus "$gpus" --out "$WORK/pair-${gpus/,/-}" --format md \
          -- --idle-seconds 1 --no-quality >"$OUT/pair-${gpus/,/-}.log" 2>&1
        rc=$?
        echo "pair sweep --gpus $gpus exit $rc wall $(python3 -c "import time; print(f'{time.time() - $t:.1f}')") s" | tee -a "$OUT/pair.md"
        grep -h '"gpu"' "$WORK/pair-${gpus/,/-}/manifest.json" | sort | uniq -c | tee -a "$OUT/pair.md"
      done
      tar -czf "$OUT/pair.tgz" -C "$WORK" pair-0 pair-0-1
      ;;
    hf)
      [ -d "$CONFIGS" ] || "$B/bench/bench_decode" --models "$MODELS" --formats none --configs-dir "$CONFIGS" >/dev/null 2>&1
      timeout "${T_HF:-240}" python3 bench/hf_peer.py --configs "$CONFIGS" --models "$MODELS" \
        --tokens "${HF_TOKENS:-$TOKENS}" --json "$OUT/hf.jsonl" >"$OUT/hf.md" 2>&1
      echo "hf_peer exit $?" >>"$OUT/hf.md"
      ;;
  esac
  echo "== $stage took $(( $(date +%s) - start )) s"
done

echo "===================== summary"
python3 bench/device/grid_table.py "$WORK/reports" "$OUT/hf.jsonl" | tee "$OUT/grid.md"
tar -czf "$OUT/reports.tgz" -C "$WORK" reports
exit 0
