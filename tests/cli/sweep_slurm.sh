# `sweep --emit-slurm` / `--collect` against a real single-node Slurm on localhost: munged, slurmctld
# and slurmd started here from a generated slurm.conf (CPU only, no gres), a tiny-model array on the
# CPU backend with one crashing task, re-emission of only the unfinished cell, collection. Tears
# everything down on exit.
source "$(dirname "$0")/lib.bash"
for tool in munged slurmctld slurmd sbatch squeue jq; do
  if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
    echo "SKIPPED: $tool is not installed (Debian: apt-get install slurm-wlm munge jq)"
    exit 0
  fi
done
export PATH="$PATH:/usr/sbin"

SL="$WORK/slurm"
mkdir -p "$SL/munge" "$SL/state" "$SL/spool" "$SL/log"
chmod 700 "$SL/munge"
teardown() {
  for pidfile in "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/munge/munged.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 1
  rm -rf "$WORK"
}
trap teardown EXIT

# munge with its own key and socket.
head -c 1024 /dev/urandom >"$SL/munge/munge.key"
chmod 600 "$SL/munge/munge.key"
munged --key-file="$SL/munge/munge.key" --socket="$SL/munge/sock" --pid-file="$SL/munge/munged.pid" \
  --log-file="$SL/munge/munged.log" --seed-file="$SL/munge/seed" --force
ME=$(id -un)
PORT=$((20000 + RANDOM % 20000))
cat >"$SL/slurm.conf" <<CONF
ClusterName=ecsweep
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=$ME
SlurmdUser=$ME
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge/sock
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerParameters=sched_interval=1
NodeName=ecnode NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$SL/slurm.conf"
slurmctld -c -f "$SLURM_CONF"
slurmd -N ecnode -f "$SLURM_CONF"
for _ in $(seq 1 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 0.5; done
if sinfo -h -o %T | grep -q idle; then ok; else
  bad "the local Slurm did not come up: $(sinfo 2>&1; tail -5 "$SL"/log/*.log)"; finish; fi

# wait_job ID: until the job has left the queue (bounded at 5 minutes).
wait_job() {
  for _ in $(seq 1 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  bad "job $1 still queued after 5 minutes: $(squeue)"
  scancel "$1"
}

DIR="$WORK/sweep"
SPEC=(--models tiny-llama,tiny-qwen2 --precisions FP16,INT8 --repeats 2 --new-tokens 4 --iterations 1 --warmup 0 --backend cpu)
# The tasks run on other nodes: a new array needs its backend named, not this node's "auto".
expect_status 2 "$EC" sweep --models tiny-llama --emit-slurm "$WORK/no-backend" -- --no-quality
expect_in "$WORK/err" "give --backend cpu or cuda"
[ ! -e "$WORK/no-backend/manifest.json" ] && ok || bad "a refused emission wrote a manifest"
# Re-emitting an array without --backend keeps the manifest's (cuda here, on a node without a GPU).
ONE=(--models tiny-llama --precisions FP16 --repeats 1 --emit-slurm "$WORK/cuda-array" --slurm-time 00:10:00)
expect_status 0 "$EC" sweep "${ONE[@]}" --backend cuda
expect_status 0 "$EC" sweep "${ONE[@]}"
expect_in "$WORK/cuda-array/sweep.sbatch" "--gres=gpu:1"
[ "$(jq -r .spec.backend "$WORK/cuda-array/manifest.json")" == cuda ] && ok || bad "re-emission changed the backend"
expect_status 0 "$EC" sweep "${SPEC[@]}" --emit-slurm "$DIR" --slurm-time 00:10:00 -- --no-quality --threads 1
expect_in "$WORK/out" "$DIR/sweep.sbatch"
expect_in "$DIR/sweep.sbatch" "#SBATCH --array=0-7"
if grep -q -- "--gres" "$DIR/sweep.sbatch"; then bad "a CPU sweep asked for a GPU"; else ok; fi
[ -d "$DIR/slurm" ] && ok || bad "no directory for the tasks' output"

# First submission: one task crashes (the wrapper reaches the task through sbatch's --export=ALL).
cat >"$WORK/crash.sh" <<'WRAP'
#!/bin/bash
case "${@: -1}" in *"/$CRASH_CELL/"*) kill -SEGV $$ ;; esac
exec "$@"
WRAP
chmod +x "$WORK/crash.sh"
job=$(EC_SWEEP_CHILD_WRAPPER="$WORK/crash.sh" CRASH_CELL=tiny-qwen2_INT8_t4_r2 sbatch --parsable "$DIR/sweep.sbatch")
[ -n "$job" ] && ok || bad "sbatch gave no job id"
wait_job "$job"
expect_eq() { if [ "$1" == "$2" ]; then ok; else bad "$3: expected '$2', got '$1'"; fi; }
expect_eq "$(ls "$DIR"/slurm/"${job}"_*.out | wc -l)" 8 "task outputs"
expect_status 1 "$EC" sweep --collect "$DIR" --format csv
expect_eq "$(jq '[.cells[] | select(.state == "done")] | length' "$DIR/manifest.json")" 7 "done after the first array"
expect_eq "$(jq -r '.cells[] | select(.id == "tiny-qwen2_INT8_t4_r2") | .signal' "$DIR/manifest.json")" 11 "crashed task"
expect_eq "$(jq -r '[.cells[] | select(.state == "done") | .slurm_job | startswith("'"$job"'_")] | all' "$DIR/manifest.json")" true "tasks recorded their job"
expect_in "$WORK/out" "tiny-qwen2,INT8,int8-llm,4,2,1,1,"

# Re-emission lists only the unfinished cell; resubmitting it completes the sweep.
expect_status 0 "$EC" sweep "${SPEC[@]}" --emit-slurm "$DIR" --slurm-time 00:10:00 -- --no-quality --threads 1
expect_in "$DIR/sweep.sbatch" "#SBATCH --array=0-0"
expect_in "$DIR/sweep.sbatch" "'tiny-qwen2_INT8_t4_r2'"
expect_eq "$(grep -c "^  '" "$DIR/sweep.sbatch")" 1 "cells listed"
job2=$(sbatch --parsable "$DIR/sweep.sbatch")
wait_job "$job2"
expect_status 0 "$EC" sweep --collect "$DIR" --format csv
expect_eq "$(jq '[.cells[] | select(.state == "done")] | length' "$DIR/manifest.json")" 8 "done after resubmission"
expect_eq "$(jq -r '.cells[] | select(.id == "tiny-qwen2_INT8_t4_r2") | .attempts' "$DIR/manifest.json")" 2 "attempts of the resubmitted cell"
expect_eq "$(tail -n +2 "$DIR/summary.csv" | wc -l)" 4 "summary rows"
expect_in "$WORK/out" "tiny-qwen2,INT8,int8-llm,4,2,2,0,"
expect_eq "$(sqlite3 "$DIR/store.sqlite" "select count(*) from runs")" 8 "store rows"
# Collecting twice changes nothing; emitting a finished sweep is refused.
expect_status 0 "$EC" sweep --collect "$DIR" --format csv
expect_eq "$(sqlite3 "$DIR/store.sqlite" "select count(*) from runs")" 8 "store rows after a second collect"
expect_status 1 "$EC" sweep "${SPEC[@]}" --emit-slurm "$DIR" -- --no-quality --threads 1
expect_in "$WORK/err" "every cell is done"
finish
