# Every file ecocompute writes survives SIGKILL at any instant: `run --out`, `aggregate
# --summary-csv/--raw-csv`, `ingest` (the SQLite store) and `fit --out` are killed at seeded random
# points; each output that exists afterwards must be whole (the previous or the new version, never a
# part) and the store must pass PRAGMA integrity_check with all or none of an ingest's runs.
# EC_KILL_SEED (default 20260901) and EC_KILL_ROUNDS (default 5 per command) change the schedule.
source "$(dirname "$0")/lib.bash"

command -v python3 >/dev/null || { echo "SKIP: python3 is needed to check the outputs"; exit 0; }
SEED="${EC_KILL_SEED:-20260901}"
ROUNDS="${EC_KILL_ROUNDS:-5}"
# Every round runs (a fixed count, whatever the machine's load); EC_KILL_BUDGET_S, when set,
# caps the seconds instead, for a quick look.
DEADLINE=$((SECONDS + ${EC_KILL_BUDGET_S:-1000000}))
echo "seed $SEED, $ROUNDS rounds per command"

# Inputs: N copies of a measured report (distinct run ids, 4 configurations) in a tree, and the
# published measured.csv for fit.
N=3000
python3 - "$SRC/tests/fixtures/analysis/ecocompute_nf4_1p1.energy.json" "$WORK/reports" "$N" <<'EOF'
import json, os, sys
base = json.load(open(sys.argv[1]))
out, n = sys.argv[2], int(sys.argv[3])
for i in range(n):
    d = os.path.join(out, f"{i // 500:02d}")
    os.makedirs(d, exist_ok=True)
    r = json.loads(json.dumps(base))
    r["run_id"] = f"kill-{i:05d}"
    r["workload"]["params_b"] = [0.5, 1.1, 3.0, 7.0][i % 4]
    # Consistent as every stored report must be: the delta, total and power follow the energy.
    e = 400.0 + (i % 97)
    r["results"]["energy_per_token_mj"] = e
    r["results"]["vs_fp16_energy_pct"] = (e / r["results"]["fp16_energy_per_token_mj"] - 1) * 100
    r["results"]["total_energy_joules"] = e / 1000 * r["results"]["tokens_generated"]
    r["results"]["avg_power_watts"] = e / 1000 * r["results"]["throughput_tokens_per_s"]
    json.dump(r, open(os.path.join(d, f"r{i:05d}.energy.json"), "w"))
EOF

# check KIND FILE [EXPECT]: FILE is whole. json: parses; csv: a header and rows of its width (and
# EXPECT data rows when given); sqlite: integrity ok and the runs count is one of EXPECT (a
# comma-separated list).
check() {
  python3 - "$@" <<'EOF'
import csv, json, sqlite3, sys
kind, path = sys.argv[1], sys.argv[2]
expect = sys.argv[3] if len(sys.argv) > 3 else ""
try:
    if kind == "json":
        json.load(open(path, encoding="utf-8"))
    elif kind == "csv":
        text = open(path, encoding="utf-8", newline="").read()
        if not text.endswith("\n"):
            raise ValueError("does not end with a line break")
        rows = list(csv.reader(text.splitlines()))
        if not rows:
            raise ValueError("no header")
        bad = [i for i, r in enumerate(rows) if len(r) != len(rows[0])]
        if bad:
            raise ValueError(f"line {bad[0] + 1} has {len(rows[bad[0]])} fields, header {len(rows[0])}")
        if expect and len(rows) - 1 != int(expect):
            raise ValueError(f"{len(rows) - 1} rows, expected {expect}")
    elif kind == "sqlite":
        db = sqlite3.connect(path)
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise ValueError(f"integrity_check: {ok}")
        n = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] if db.execute(
            "SELECT 1 FROM sqlite_master WHERE name='runs'").fetchone() else 0
        if expect and str(n) not in expect.split(","):
            raise ValueError(f"{n} runs, expected one of {expect}")
except Exception as e:
    print(f"{path}: {e}")
    sys.exit(1)
EOF
}

# Seeded pseudo-random delays (LCG, so the schedule is the same on every machine and shell).
rng_state=$SEED
random_below() {  # random_below MAX_MS → an integer in [0, MAX_MS)
  rng_state=$(((rng_state * 1103515245 + 12345) % 2147483648))
  echo $((rng_state % $1))
}

now_ms() { date +%s%3N; }

# kill_after MS CMD...: starts CMD, SIGKILLs it after MS milliseconds (if still running).
kill_after() {
  local ms="$1"; shift
  "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# calibrate NAME CMD...: one full run, timed; prints its duration in ms (at least 50).
calibrate() {
  local t0; t0=$(now_ms)
  "$@" >/dev/null 2>"$WORK/calibrate.err" || { bad "$1: the uninterrupted run failed: $(head -c 300 "$WORK/calibrate.err")"; echo 50; return; }
  local ms=$(($(now_ms) - t0))
  [ "$ms" -lt 50 ] && ms=50
  echo "$ms"
}

# delay_for MS ROUND: even rounds anywhere in the run, odd ones near its end, where the writes are.
delay_for() {
  if [ $(($2 % 2)) -eq 0 ]; then random_below "$1"; else echo $(($1 * 3 / 4 + $(random_below $(($1 / 2 + 1))))); fi
}

rounds_done=0
in_time() { [ "$SECONDS" -lt "$DEADLINE" ]; }

# --- run --out: the report is either absent, the previous complete one, or the new complete one.
RUN=("$EC" run --iterations 1 --warmup 0 --new-tokens 8 --no-quality --no-meter --idle-seconds 0
     --cool-off 0)
ms=$(calibrate "${RUN[@]}" --out "$WORK/run.json")
check json "$WORK/run.json" && ok || bad "run: the uninterrupted report is not valid JSON"
for ((i = 0; i < ROUNDS; i++)); do
  in_time || break
  kill_after "$(delay_for "$ms" "$i")" "${RUN[@]}" --out "$WORK/run.json"
  rounds_done=$((rounds_done + 1))
  if [ -e "$WORK/run.json" ]; then check json "$WORK/run.json" && ok || bad "run: report corrupt after SIGKILL"; fi
done

# --- aggregate --summary-csv --raw-csv over the reports.
AGG=("$EC" aggregate "$WORK/reports" --format csv --summary-csv "$WORK/summary.csv" --raw-csv "$WORK/raw.csv")
ms=$(calibrate "${AGG[@]}")
check csv "$WORK/raw.csv" "$N" && ok || bad "aggregate: the uninterrupted raw CSV is wrong"
check csv "$WORK/summary.csv" 4 && ok || bad "aggregate: the uninterrupted summary CSV is wrong"
for ((i = 0; i < ROUNDS; i++)); do
  in_time || break
  rm -f "$WORK/summary.csv" "$WORK/raw.csv"
  [ $((i % 2)) -eq 1 ] && printf 'old\n1\n' >"$WORK/raw.csv"  # an earlier file being replaced
  kill_after "$(delay_for "$ms" "$i")" "${AGG[@]}"
  rounds_done=$((rounds_done + 1))
  if [ -e "$WORK/raw.csv" ]; then
    if [ "$(head -1 "$WORK/raw.csv")" = "old" ]; then
      check csv "$WORK/raw.csv" 1 && ok || bad "aggregate: the previous raw CSV was damaged"
    else
      check csv "$WORK/raw.csv" "$N" && ok || bad "aggregate: raw CSV corrupt after SIGKILL"
    fi
  fi
  if [ -e "$WORK/summary.csv" ]; then check csv "$WORK/summary.csv" 4 && ok || bad "aggregate: summary CSV corrupt after SIGKILL"; fi
done

# --- ingest: one transaction, so after a kill the store holds all of an ingest's runs or none.
ING=("$EC" ingest --db "$WORK/store/results.sqlite")
ms=$(calibrate "${ING[@]}" "$WORK/reports/00")
check sqlite "$WORK/store/results.sqlite" 500 && ok || bad "ingest: the uninterrupted store is wrong"
have=500
for ((i = 1; i < 6 && i <= ROUNDS; i++)); do
  in_time || break
  dir="$WORK/reports/$(printf '%02d' "$i")"
  kill_after "$(delay_for "$ms" "$i")" "${ING[@]}" "$dir"
  rounds_done=$((rounds_done + 1))
  check sqlite "$WORK/store/results.sqlite" "$have,$((have + 500))" && ok || bad "ingest: store corrupt or half-ingested after SIGKILL"
  # Whatever the kill left, ingesting again completes it (idempotent, keyed by run id).
  "${ING[@]}" "$dir" >/dev/null 2>&1 || bad "ingest: re-ingest after a kill failed"
  have=$((have + 500))
  check sqlite "$WORK/store/results.sqlite" "$have" && ok || bad "ingest: re-ingest after a kill did not complete the store"
done

# --- fit --out on the published measured.csv.
FIT=("$EC" fit "$SRC/tests/fixtures/original/measured.csv" --format json --out "$WORK/curves.json")
ms=$(calibrate "${FIT[@]}")
check json "$WORK/curves.json" && ok || bad "fit: the uninterrupted curves.json is not valid JSON"
for ((i = 0; i < ROUNDS; i++)); do
  in_time || break
  kill_after "$(delay_for "$ms" "$i")" "${FIT[@]}"
  rounds_done=$((rounds_done + 1))
  [ -e "$WORK/curves.json" ] && { check json "$WORK/curves.json" && ok || bad "fit: curves.json corrupt after SIGKILL"; }
done

# A kill leaves write_file_atomic's temporary file behind (hidden, never the output's name).
leftovers=$(find "$WORK" -name '.*.tmp.*' | wc -l)
echo "$rounds_done kills; $leftovers temporary file(s) left by killed writes"
[ "$rounds_done" -ge 10 ] && ok || bad "only $rounds_done kills ran before the time budget"
finish
