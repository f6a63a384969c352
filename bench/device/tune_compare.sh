#!/usr/bin/env bash
# Whether a tune pays in decode, in one command of at most 10 minutes on the GPU machine:
#   tests    the CUDA GEMV variants against their CPU twins and each other (test_engine_cuda);
#   kernels  each GEMV role's variants alone (bench_kernels, µs per call) for the formats tuned;
#   tune     `ecocompute tune` of each model × precision into a copy of the table
#            (tuned.json), starting from the copy's entries, as the tuner does;
#   turns    bench_decode with the table before and with the tuned copy (and the pinned copy,
#            with PIN; the other table, with VS), in processes that take turns
#            (bench/decode_turns.py): tok/s of every process, × FP16, J/1k tok, variants.
# then the turns' table (also $OUT/summary.md; every output in $OUT/tune_compare.tgz). A tuned
# copy goes into data/tuning/ only where its processes decode faster than the table's, their ranges
# apart (data/tuning/README.md).
#   bench/device/tune_compare.sh [BUILD_DIR]
#   MODELS=qwen2-7b PRECISIONS=NF4,NF4-DQ TURNS=2 TABLE=FILE (default: data/tuning/'s table
#   named for this GPU)
#   STAGES="tests kernels tune turns"
#   PIN="qwen2-7b:nf4,nf4-dq:qkv,o=r2p-whole ..."   an arm of the table with those entries on
#            those variants (bench/table_arm.py's SETs), timed in the turns beside the others
#   VS=FILE  an arm of another whole table, e.g. the other card's (VS=data/tuning/nvidia-h100-...
#            on an H200), renamed for this GPU: which of two cards' entries decode faster here
# A table named for another GPU (the H200's on an H100) is renamed for this one in every arm.
# Budget on an H200: tests ≈ 60 s, kernels ≈ 20 s a model, tune ≈ 10 s a model and precision,
# turns ≈ 30 s a 7B process of three formats. Each stage has its own timeout.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-build/static}" && pwd)
EC="$B/bin/ecocompute"
BENCH="$B/bench"
OUT=${OUT:-$PWD/out}
STAGES=${STAGES:-"tests kernels tune turns"}
MODELS=${MODELS:-qwen2-7b}
PRECISIONS=${PRECISIONS:-NF4,NF4-DQ}
TURNS=${TURNS:-2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export EC_NO_PROGRESS=1
# shellcheck source=bench/device/return_archive.sh
. "$HERE/return_archive.sh"
return_archive tune_compare
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
# bench_kernels' format names for the precisions: lower case, LLM.int8() as int8-llm.
kernel_formats() {
  local out=() p
  for p in ${1//,/ }; do
    p=$(echo "$p" | tr 'A-Z' 'a-z')
    [ "$p" = int8 ] && p=int8-llm
    out+=("$p")
  done
  (IFS=,; echo "${out[*]}")
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv >"$OUT/smi.txt" 2>&1
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
# The table before: TABLE, else the one data/tuning/ ships for this GPU.
if [ -z "${TABLE:-}" ]; then
  TABLE=$(grep -lF "\"name\": \"$GPU\"" "$HERE"/../../data/tuning/*.json 2>/dev/null | head -1)
  if [ -z "$TABLE" ]; then
    echo "tune_compare: no table in data/tuning/ is named for '$GPU'; give TABLE=FILE" >&2
    exit 2
  fi
fi
echo "table before: $TABLE ($(sha256sum "$TABLE" | cut -c1-12))" | tee "$OUT/table.txt"
# The engine loads only a table named for its own GPU: on another card, every arm starts from a
# copy renamed for it.
if [ -n "$GPU" ] && ! grep -qF "\"name\": \"$GPU\"" "$TABLE"; then
  python3 "$HERE/../table_arm.py" "$TABLE" --gpu "$GPU" --out "$OUT/before.json" >/dev/null ||
    exit 2
  TABLE="$OUT/before.json"
  echo "renamed for $GPU: $TABLE" | tee -a "$OUT/table.txt"
fi
if [ -n "${VS:-}" ]; then
  python3 "$HERE/../table_arm.py" "$VS" --gpu "$GPU" --out "$OUT/vs.json" >/dev/null || exit 2
  echo "vs: $VS ($(sha256sum "$VS" | cut -c1-12)), renamed for $GPU" | tee -a "$OUT/table.txt"
fi
if [ -n "${PIN:-}" ]; then
  # shellcheck disable=SC2086  # PIN is a list of SETs
  python3 "$HERE/../table_arm.py" "$TABLE" --out "$OUT/pinned.json" $PIN | tee -a "$OUT/table.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || exit 2
fi

for stage in $STAGES; do
  # Past the budget a stage is skipped, so that the summary still prints within 10 minutes.
  if [ "$(elapsed)" -gt "${BUDGET_S:-520}" ]; then
    echo "skipping $stage: $(elapsed) s spent"
    continue
  fi
  case $stage in
    tests)
      timeout 150 "$B/tests/test_engine_cuda" --gtest_filter='*Gemv*' >"$OUT/tests.log" 2>&1
      status=$?
      verdict=$(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests.log" | tr '\n' ' ')
      echo "test_engine_cuda (GEMV) exit $status at $(elapsed) s: $verdict"
      ;;
    kernels)
      for m in ${MODELS//,/ }; do
        timeout 120 "$BENCH/bench_kernels" --preset "$m" \
          --formats "$(kernel_formats "$PRECISIONS")" --json "$OUT/kernels-$m.jsonl" \
          >"$OUT/kernels-$m.md" 2>"$OUT/kernels-$m.err"
        echo "bench_kernels $m exit $? at $(elapsed) s"
      done
      ;;
    tune)
      cp "$TABLE" "$OUT/tuned.json"
      for m in ${MODELS//,/ }; do
        timeout 200 "$EC" tune --model "$m" --precision "$PRECISIONS" --out "$OUT/tuned.json" \
          --log >"$OUT/tune-$m.md" 2>"$OUT/tune-$m.err"
        echo "tune $m exit $? at $(elapsed) s"
      done
      ;;
    turns)
      arms=(--arm "before=--tuning-table $TABLE")
      [ -f "$OUT/tuned.json" ] && arms+=(--arm "tuned=--tuning-table $OUT/tuned.json")
      [ -f "$OUT/pinned.json" ] && arms+=(--arm "pinned=--tuning-table $OUT/pinned.json")
      [ -f "$OUT/vs.json" ] && arms+=(--arm "vs=--tuning-table $OUT/vs.json")
      if [ ${#arms[@]} -lt 4 ]; then
        echo "turns: nothing to compare with the table (run the tune stage, or give PIN or VS)"
        continue
      fi
      timeout 400 python3 "$HERE/../decode_turns.py" --bench "$BENCH/bench_decode" \
        --turns "$TURNS" --json "$OUT/turns.jsonl" --log "$OUT/turns.log" "${arms[@]}" \
        -- --models "$MODELS" --formats "FP16,$PRECISIONS" --tokens 256 >"$OUT/summary.md"
      echo "turns exit $? at $(elapsed) s"
      cat "$OUT/summary.md"
      ;;
  esac
done
echo "total $(elapsed) s"
