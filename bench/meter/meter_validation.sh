#!/usr/bin/env bash
# The meter's validation on a GPU machine (bench/meter/build.sh makes PROBE_BINARY):
#  1. the 8 s fp16 matmul load unmetered (TFLOP/s baseline);
#  2. the same load metered at 100 Hz, after a cost table of every NVML call we use;
#  3. a 3 s burst of the same load metered at 100 Hz (where a 1 s moving average reads low).
# Usage (on the GPU machine, repo root): bench/meter/meter_validation.sh PROBE_BINARY OUTDIR
set -uo pipefail
probe="$1"
out="$2"
mkdir -p "$out/r1" "$out/short"
export PYTHONUNBUFFERED=1
load="python3 bench/meter/matmul_load.py"
nvidia-smi --query-gpu=name,driver_version,power.draw,power.limit,temperature.gpu,clocks.sm --format=csv | tee "$out/smi.txt"
echo "--- unmetered 8 s"
$load --seconds 8 2>&1 | tee "$out/unmetered.txt"
sleep 3
echo "--- metered at 100 Hz, 8 s"
"$probe" --costs 200 --hz 100 --idle-s 3 --marks /tmp/ec_marks_r1.txt --out "$out/r1" -- $load --seconds 8 2>&1 | tee "$out/r1/log.txt"
sleep 5
echo "--- metered at 100 Hz, 3 s burst"
"$probe" --hz 100 --idle-s 3 --marks /tmp/ec_marks_short.txt --out "$out/short" -- $load --seconds 3 2>&1 | tee "$out/short/log.txt"
