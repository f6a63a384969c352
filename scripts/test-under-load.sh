#!/usr/bin/env bash
# Runs the test suite while every core is kept busy by a spinning process, as on a shared CI box:
# the suite's timing checks must hold by logic (injected clocks, measured tolerances), not by an
# idle machine. Exits with ctest's status.
#   scripts/test-under-load.sh                 # ctest --preset default -j2
#   scripts/test-under-load.sh -R 'NvmlMeter'  # extra arguments go to ctest
# Environment: PRESET (default: default), LOAD_PROCESSES (default: nproc).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
preset="${PRESET:-default}"
load="${LOAD_PROCESSES:-$(nproc)}"
[[ "$load" =~ ^[0-9]+$ ]] || { echo "test-under-load: LOAD_PROCESSES must be a number" >&2; exit 2; }

spinners=()
stop_spinners() {
  for pid in "${spinners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${spinners[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_spinners EXIT

for ((i = 0; i < load; ++i)); do
  bash -c 'while :; do :; done' &
  spinners+=("$!")
done
echo "test-under-load: ${load} spinning processes (pids ${spinners[*]}) on $(nproc) cores"

start=$(date +%s)
status=0
ctest --preset "$preset" -j2 "$@" || status=$?
echo "test-under-load: ctest exited ${status} after $(( $(date +%s) - start )) s under load"
exit "$status"
