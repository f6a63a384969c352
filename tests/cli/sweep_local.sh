# `ecocompute sweep` on this host with the CPU backend and the embedded tiny models: a full sweep and
# its summary, resume that skips finished cells, a conflicting command line, a locked directory, a
# crashing child, a bogus model refused up front, kill -9 in the middle (nothing lost, nothing run
# twice), two "GPUs" running children at the same time, and read-only / full output directories.
source "$(dirname "$0")/lib.bash"
command -v jq >/dev/null || { echo "jq is required"; exit 1; }

# Small and fast: 4 tokens, 1 iteration, no quality probe, one thread per child; on the CPU even
# where a GPU is visible (the default backend, auto, would pick it).
FAST=(--new-tokens 4 --iterations 1 --warmup 0 --backend cpu)
RUNARGS=(-- --no-quality --threads 1)
state_count() { jq "[.cells[] | select(.state == \"$2\")] | length" "$1/manifest.json"; }
cell_field() { jq -r ".cells[] | select(.id == \"$2\") | .$3" "$1/manifest.json"; }
expect_eq() { if [ "$1" == "$2" ]; then ok; else bad "$3: expected '$2', got '$1'"; fi; }

# --- 1. A full sweep: 2 models x 2 precisions x 2 repeats = 8 cells -------------------------------
S1=(sweep --models tiny-llama,tiny-qwen2 --precisions FP16,int8 --repeats 2 "${FAST[@]}" --out "$WORK/s1" --format csv "${RUNARGS[@]}")
expect_status 0 "$EC" "${S1[@]}"
# The summary: csv on stdout and in the directory, one row per configuration, CPU energy absent.
expect_in "$WORK/out" "model,precision,weight_format,new_tokens,cells,done,failed"
expect_in "$WORK/out" "tiny-qwen2,INT8,int8-llm,4,2,2,0,,unavailable,0,"
expect_in "$WORK/err" "8 of 8 cells done, 0 failed"
expect_eq "$(state_count "$WORK/s1" done)" 8 "done cells"
expect_eq "$(jq -r '.cells[0].id' "$WORK/s1/manifest.json")" "tiny-llama_FP16_t4_r1" "first cell id"
expect_eq "$(jq -r '.cells[4].replicate' "$WORK/s1/manifest.json")" 2 "replicates outermost"
# Every cell has its own report, log and a distinct run (fresh process, own FP16 baseline).
expect_eq "$(ls "$WORK"/s1/cells/*/energy.json | wc -l)" 8 "reports"
expect_eq "$(jq -r '.cells[].run_id' "$WORK/s1/manifest.json" | sort -u | wc -l)" 8 "distinct run ids"
expect_in "$WORK/s1/cells/tiny-qwen2_INT8_t4_r2/energy.json" '"baseline"'
expect_status 0 "$EC" validate "$WORK/s1/cells/tiny-llama_INT8_t4_r1/energy.json"
expect_eq "$(tail -n +2 "$WORK/s1/summary.csv" | wc -l)" 4 "summary rows"
# Ingested into the sweep's store under the sweep's session.
expect_eq "$(sqlite3 "$WORK/s1/store.sqlite" "select count(*) from runs")" 8 "store rows"
SESSION=$(jq -r .session "$WORK/s1/manifest.json")
expect_eq "$(sqlite3 "$WORK/s1/store.sqlite" "select count(distinct session) from runs")" 1 "one session"
# aggregate summarises the CPU runs without an energy meter for throughput (and quality), not
# energy, and says so.
expect_status 0 "$EC" aggregate --db "$WORK/s1/store.sqlite" --format csv
expect_in "$WORK/err" "8 run(s) without an energy meter (basis 'unavailable'): in throughput and quality, not in energy"
expect_eq "$(tail -n +2 "$WORK/out" | wc -l)" 4 "aggregate rows"

# --- 2. The same command again: nothing runs, the summary is the same ---------------------------
before=$(jq -c '[.cells[] | [.id, .started_utc, .attempts]]' "$WORK/s1/manifest.json")
expect_status 0 "$EC" "${S1[@]}"
expect_eq "$(jq -c '[.cells[] | [.id, .started_utc, .attempts]]' "$WORK/s1/manifest.json")" "$before" "resume ran nothing"
expect_in "$WORK/err" "ran 0 cell(s)"
expect_eq "$(tail -n +2 "$WORK/s1/summary.csv" | wc -l)" 4 "summary rows after resume"
# Without --backend (auto), the same sweep resumes on its manifest's backend, whatever this host has.
S1_AUTO=()
skip=0
for arg in "${S1[@]}"; do
  if [ "$arg" == "--backend" ]; then skip=1; elif [ "$skip" == 1 ]; then skip=0; else S1_AUTO+=("$arg"); fi
done
expect_status 0 "$EC" "${S1_AUTO[@]}"
expect_in "$WORK/err" "ran 0 cell(s)"
expect_eq "$(jq -r .spec.backend "$WORK/s1/manifest.json")" cpu "backend kept on resume"
# A new sweep with auto uses the GPU when one is visible, else the CPU (checked where none is).
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  expect_status 0 "$EC" sweep --models tiny-llama --precisions FP16 --repeats 1 --new-tokens 4 \
    --iterations 1 --warmup 0 --out "$WORK/s_auto" "${RUNARGS[@]}"
  expect_eq "$(jq -r .spec.backend "$WORK/s_auto/manifest.json")" cpu "auto without a GPU"
fi
# Another format of the same results.
expect_status 0 "$EC" "${S1[@]/csv/json}"
expect_in "$WORK/s1/summary.json" '"throughput_tok_s_mean"'

# --- 3. A different sweep in the same directory is refused, naming the difference ---------------
expect_status 2 "$EC" sweep --models tiny-llama,tiny-qwen2 --precisions FP16,INT8 --repeats 3 "${FAST[@]}" --out "$WORK/s1" "${RUNARGS[@]}"
expect_in "$WORK/err" "repeats: 3 on this command line, 2 in the manifest"
expect_status 2 "$EC" sweep --models tiny-llama --precisions FP12 --out "$WORK/bad"
expect_in "$WORK/err" "FP12"
[ ! -e "$WORK/bad" ] && ok || bad "a usage error created the sweep directory"
# A directory another sweep holds is refused.
expect_status 1 flock -n "$WORK/s1/.sweep.lock" "$EC" "${S1[@]}"
expect_in "$WORK/err" "another sweep is running in this directory"

# --- 4. A child that crashes fails only its cell; re-running retries it -------------------------
cat >"$WORK/crash.sh" <<'WRAP'
#!/bin/bash
# Test wrapper: the cell named by CRASH_CELL dies by SIGSEGV before running.
case "${@: -1}" in *"/$CRASH_CELL/"*) kill -SEGV $$ ;; esac
exec "$@"
WRAP
chmod +x "$WORK/crash.sh"
S4=(sweep --models tiny-llama --precisions FP16,INT8 --repeats 2 "${FAST[@]}" --out "$WORK/s4" --format csv "${RUNARGS[@]}")
expect_status 1 env EC_SWEEP_CHILD_WRAPPER="$WORK/crash.sh" CRASH_CELL=tiny-llama_INT8_t4_r1 "$EC" "${S4[@]}"
expect_eq "$(state_count "$WORK/s4" done)" 3 "done beside the crash"
expect_eq "$(cell_field "$WORK/s4" tiny-llama_INT8_t4_r1 state)" failed "crashed cell state"
expect_eq "$(cell_field "$WORK/s4" tiny-llama_INT8_t4_r1 signal)" 11 "crashed cell signal"
expect_in "$WORK/err" "tiny-llama_INT8_t4_r1 FAILED after"
expect_in "$WORK/err" "killed by signal 11 (SIGSEGV)"
expect_in "$WORK/err" "cells/tiny-llama_INT8_t4_r1/run.log"
expect_in "$WORK/out" "tiny-llama,INT8,int8-llm,4,2,1,1,"
expect_status 0 "$EC" "${S4[@]}"
expect_eq "$(state_count "$WORK/s4" done)" 4 "retried crash"
expect_eq "$(cell_field "$WORK/s4" tiny-llama_INT8_t4_r1 attempts)" 2 "attempts of the retried cell"
expect_eq "$(cell_field "$WORK/s4" tiny-llama_FP16_t4_r1 attempts)" 1 "attempts of a done cell"

# --- 5. A bogus model fails the sweep before any cell runs, naming the cell and the model -------
expect_status 2 "$EC" sweep --models tiny-llama,no-such-model --precisions INT8 --repeats 1 "${FAST[@]}" --out "$WORK/s5" "${RUNARGS[@]}"
expect_in "$WORK/err" "cell no-such-model at 4 new tokens: model 'no-such-model' is neither a checkpoint directory nor a preset"
[ ! -e "$WORK/s5/cells/tiny-llama_INT8_t4_r1/energy.json" ] && ok || bad "a cell ran before the sweep was refused"

# --- 6. kill -9 in the middle: nothing lost, nothing run twice ----------------------------------
# The wrapper holds the child of HOLD_CELL until the file RELEASE exists, so that the kill lands
# while that cell's child is alive, whatever the load on this machine.
cat >"$WORK/gate.sh" <<'WRAP'
#!/bin/bash
# Test wrapper: records each child start (cell, pid); holds HOLD_CELL's child until RELEASE exists.
cell=$(basename "$(dirname "${@: -1}")")
echo "$cell $$" >>"$INVOCATIONS"
if [ "$cell" == "${HOLD_CELL-}" ]; then
  for _ in $(seq 1 1200); do [ -e "$RELEASE" ] && break; sleep 0.05; done
fi
exec "$@"
WRAP
chmod +x "$WORK/gate.sh"
# wait_until SECONDS CMD...: CMD succeeds within SECONDS (polled every 50 ms).
wait_until() {
  local tries=$(($1 * 20)); shift
  for _ in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.05; done
  return 1
}
# started CELL FILE: the child of CELL has started (FILE lists the starts), waiting up to 60 s.
started() { wait_until 60 grep -q "^$1 " "$2" 2>/dev/null; }
# dead PID: no such process, or a zombie (in a container PID 1 may never reap the orphan).
dead() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null || true); [ -z "$state" ] || [[ "$state" == Z* ]]; }
export INVOCATIONS="$WORK/invocations.txt" RELEASE="$WORK/release"
# Cells run replicates outermost: the third is tiny-llama's second replicate.
S6=(sweep --models tiny-llama,tiny-qwen2 --precisions INT8 --repeats 3 "${FAST[@]}" --out "$WORK/s6" "${RUNARGS[@]}")
HOLD_CELL=tiny-llama_INT8_t4_r2 EC_SWEEP_CHILD_WRAPPER="$WORK/gate.sh" "$EC" "${S6[@]}" >"$WORK/s6.out" 2>"$WORK/s6.err" &
sweep_pid=$!
started tiny-llama_INT8_t4_r2 "$INVOCATIONS" || bad "the held cell's child never started"
kill -9 "$sweep_pid"; wait "$sweep_pid" 2>/dev/null || true
done_before=$(state_count "$WORK/s6" done)
running_cell=$(jq -r '.cells[] | select(.state == "running") | .id' "$WORK/s6/manifest.json")
expect_eq "$done_before" 2 "cells done before the kill"
expect_eq "$running_cell" tiny-llama_INT8_t4_r2 "cell running at the kill"
# The child of the killed sweep died with it (PR_SET_PDEATHSIG).
child_pid=$(awk -v c="$running_cell" '$1 == c {p = $2} END {print p}' "$INVOCATIONS")
# SIGKILL reaches the child as its parent dies; the wait only gives a loaded machine time to carry
# it out.
if [ -n "$child_pid" ] && wait_until 10 dead "$child_pid"; then ok; else bad "child $child_pid of the killed sweep is still alive ($(ps -o stat= -p "$child_pid"))"; fi
jq -r '.cells[] | select(.state == "done") | .id' "$WORK/s6/manifest.json" | sort >"$WORK/done_before.txt"
for c in $(cat "$WORK/done_before.txt"); do jq -r .timestamp_utc "$WORK/s6/cells/$c/energy.json"; done >"$WORK/stamps_before.txt"
touch "$RELEASE"
expect_status 0 env EC_SWEEP_CHILD_WRAPPER="$WORK/gate.sh" "$EC" "${S6[@]}"
expect_in "$WORK/err" "$running_cell: was running when the sweep stopped"
expect_eq "$(state_count "$WORK/s6" done)" 6 "all done after resume"
for c in $(cat "$WORK/done_before.txt"); do jq -r .timestamp_utc "$WORK/s6/cells/$c/energy.json"; done >"$WORK/stamps_after.txt"
if cmp -s "$WORK/stamps_before.txt" "$WORK/stamps_after.txt"; then ok; else bad "a finished cell was run again"; fi
# Every cell started once, except the one the kill interrupted, which started twice.
for c in $(jq -r '.cells[].id' "$WORK/s6/manifest.json"); do
  n=$(awk -v c="$c" '$1 == c' "$INVOCATIONS" | wc -l)
  want=1; [ "$c" == "$running_cell" ] && want=2
  expect_eq "$n" "$want" "starts of $c"
  expect_eq "$(cell_field "$WORK/s6" "$c" attempts)" "$want" "attempts of $c"
done
expect_eq "$(sqlite3 "$WORK/s6/store.sqlite" "select count(*) from runs")" 6 "store rows after resume"

# --- 6b. Ctrl-C / SIGTERM: the sweep stops its children, puts their cells back, exits 130 -------
# The first cell's child is held (as in 6) so that the interrupt lands while it runs.
S6B=(sweep --models tiny-llama --precisions INT8 --repeats 3 "${FAST[@]}" --cooloff-s 1 --out "$WORK/s6b" "${RUNARGS[@]}")
INVOCATIONS="$WORK/invocations6b.txt" RELEASE="$WORK/release6b" HOLD_CELL=tiny-llama_INT8_t4_r1 \
  EC_SWEEP_CHILD_WRAPPER="$WORK/gate.sh" "$EC" "${S6B[@]}" >"$WORK/s6b.out" 2>"$WORK/s6b.err" &
sweep_pid=$!
started tiny-llama_INT8_t4_r1 "$WORK/invocations6b.txt" || bad "the held cell's child never started"
kill -INT "$sweep_pid"
status=0; wait "$sweep_pid" || status=$?
expect_eq "$status" 130 "exit status after SIGINT"
expect_eq "$(state_count "$WORK/s6b" running)" 0 "running cells after SIGINT"
expect_in "$WORK/s6b.err" "interrupted; run the same command again to resume"
expect_status 0 "$EC" "${S6B[@]}"
expect_eq "$(state_count "$WORK/s6b" done)" 3 "done after the interrupted sweep"
# --cooloff-s 1: each cell starts at least a second after the previous one finished.
gaps=$(jq -r '.cells | sort_by(.started_utc) | .[] | "\(.started_utc) \(.finished_utc)"' "$WORK/s6b/manifest.json" |
  while read -r start finish; do echo "$(date -d "$start" +%s.%N) $(date -d "$finish" +%s.%N)"; done |
  awk 'NR > 1 {print ($1 - prev >= 1.0) ? "ok" : "short"} {prev = $2}' | sort -u | tr '\n' ' ')
expect_eq "$gaps" "ok " "cool-off gaps"

# --- 7. Two "GPUs": two children at once, each told its device ----------------------------------
cat >"$WORK/timed.sh" <<'WRAP'
#!/bin/bash
# Test wrapper: records when each child ran and which device it was given, once a child on another
# device has started.
cell=$(basename "$(dirname "${@: -1}")")
t0=$(date +%s.%N)
# Meet a child given another device before running (waiting at most 60 s): children run in
# parallel meet at once, whatever the load; a queue that ran them one by one would wait out the
# limit, and the overlap check below would fail.
echo "${CUDA_VISIBLE_DEVICES-unset}" >"$TIMES.started.$cell"
for _ in $(seq 1 1200); do
  grep -qvx -- "${CUDA_VISIBLE_DEVICES-unset}" "$TIMES".started.* && break
  sleep 0.05
done
"$@"; rc=$?
echo "$cell ${CUDA_VISIBLE_DEVICES-unset} $t0 $(date +%s.%N)" >>"$TIMES"
exit $rc
WRAP
chmod +x "$WORK/timed.sh"
expect_status 0 env EC_SWEEP_CHILD_WRAPPER="$WORK/timed.sh" TIMES="$WORK/times.txt" "$EC" sweep --models tiny-llama --precisions FP16,INT8 --repeats 2 --new-tokens 8 --iterations 2 --warmup 0 --gpus 0,1 --backend cpu --out "$WORK/s7" "${RUNARGS[@]}"
expect_eq "$(wc -l <"$WORK/times.txt")" 4 "timed children"
expect_eq "$(awk '{print $2}' "$WORK/times.txt" | sort -u | tr '\n' ' ')" "0 1 " "devices given"
overlaps=$(awk '{c[NR]=$2; s[NR]=$3; e[NR]=$4} END {n=0; for (i=1;i<=NR;i++) for (j=i+1;j<=NR;j++) if (c[i]!=c[j] && s[i]<e[j] && s[j]<e[i]) n++; print n}' "$WORK/times.txt")
if [ "$overlaps" -ge 1 ]; then ok; else bad "no two children on different GPUs overlapped: $(cat "$WORK/times.txt")"; fi
# Which GPU runs which cell depends on which frees first (the queue hands the next cell to the
# first idle GPU), so the split need not be 2 + 2; what must hold is that both were used and the
# manifest names, for each cell, the device its child was given.
expect_eq "$(jq -r '[.cells[].gpu] | unique | map(tostring) | join(",")' "$WORK/s7/manifest.json")" "0,1" "gpus in manifest"
expect_eq "$(jq -r '.cells[] | "\(.id) \(.gpu)"' "$WORK/s7/manifest.json" | sort | tr '\n' ';')" \
  "$(awk '{print $1, $2}' "$WORK/times.txt" | sort | tr '\n' ';')" "each cell's gpu in the manifest is the device its child saw"
# The report records the device the child was given.
for c in $(jq -r '.cells[].id' "$WORK/s7/manifest.json"); do
  expect_eq "$(jq -r .environment.cuda_visible_devices "$WORK/s7/cells/$c/energy.json")" "$(cell_field "$WORK/s7" "$c" gpu)" "report device of $c"
done
expect_status 2 "$EC" sweep --models tiny-llama --precisions INT8 --gpus 0,0 --out "$WORK/s7b"
expect_in "$WORK/err" "listed twice"

# --- 8. Read-only and full output directories give clear errors ---------------------------------
if mkdir -p "$WORK/mnt" && mount -t tmpfs -o size=1m tmpfs "$WORK/mnt" 2>/dev/null; then
  mkdir "$WORK/mnt/ro"
  mount -o remount,ro "$WORK/mnt"
  expect_status 1 "$EC" sweep --models tiny-llama --precisions INT8 --repeats 1 "${FAST[@]}" --out "$WORK/mnt/ro" "${RUNARGS[@]}"
  expect_in "$WORK/err" "$WORK/mnt/ro: cannot write in the sweep directory: Read-only file system"
  expect_status 1 "$EC" sweep --models tiny-llama --precisions INT8 --repeats 1 "${FAST[@]}" --out "$WORK/mnt/ro/new" "${RUNARGS[@]}"
  expect_in "$WORK/err" "cannot create the sweep directory"
  umount "$WORK/mnt"
  # 12 KiB: room for the manifest, not for the store or the run's report.
  mount -t tmpfs -o size=12k tmpfs "$WORK/mnt"
  expect_status 1 "$EC" sweep --models tiny-llama --precisions INT8 --repeats 2 "${FAST[@]}" --out "$WORK/mnt/full" "${RUNARGS[@]}"
  expect_in "$WORK/err" "$WORK/mnt/full/store.sqlite"
  expect_in "$WORK/err" "the disk is full"
  # With the store elsewhere, the cells' own files hit the full disk.
  expect_status 1 "$EC" sweep --models tiny-llama --precisions INT8 --repeats 2 "${FAST[@]}" --out "$WORK/mnt/full" --db "$WORK/full.sqlite" "${RUNARGS[@]}"
  expect_in "$WORK/err" "No space left on device"
  expect_in "$WORK/err" "$WORK/mnt/full/manifest.json: cannot save the sweep manifest"
  if jq -e .cells "$WORK/mnt/full/manifest.json" >/dev/null; then ok; else bad "a half-written manifest"; fi
  if ls -a "$WORK/mnt/full" | grep -q '\.tmp\.'; then bad "temp files left on the full disk"; else ok; fi
  cp "$WORK/err" "$WORK/full.err"
  umount "$WORK/mnt"
else
  # Without mount (not root): permissions stand in for a read-only file system; ulimit -f for a full disk.
  mkdir -p "$WORK/ro" && chmod 555 "$WORK/ro"
  expect_status 1 "$EC" sweep --models tiny-llama --precisions INT8 --repeats 1 "${FAST[@]}" --out "$WORK/ro" "${RUNARGS[@]}"
  expect_in "$WORK/err" "cannot write in the sweep directory"
  expect_status 1 bash -c 'ulimit -f 8; exec "$@"' _ "$EC" sweep --models tiny-llama --precisions INT8 --repeats 2 "${FAST[@]}" --out "$WORK/full" "${RUNARGS[@]}"
  expect_in "$WORK/err" "File too large"
fi
finish
