# The one gate for what counts as data, end to end: invalid reports are refused by `ingest` (exit 3),
# the original's illustrative example never counts as measured, a re-serialised report stays one
# run, the two August sessions compare, July against August compares, `fit` takes both published
# CSVs, and the summary CSV is the published one byte for byte.
source "$(dirname "$0")/lib.bash"
FIX="$SRC/tests/fixtures"
GOOD="$FIX/analysis/original_int8_7b.energy.json"
DB="$WORK/store.sqlite"

# ingest: a valid report is stored (exit 0); each invalid variant is rejected naming its field.
expect_status 0 "$EC" ingest --db "$DB" "$GOOD"
bad_variant() {  # NAME SED-EXPRESSION FIELD-TEXT
  sed "$2" "$GOOD" >"$WORK/$1.json"
  cmp -s "$GOOD" "$WORK/$1.json" && bad "variant $1 changed nothing"
  expect_status 3 "$EC" ingest --db "$DB" "$WORK/$1.json"
  expect_in "$WORK/err" "$1.json"
  expect_in "$WORK/err" "$3"
}
bad_variant negative-energy 's/"energy_per_token_mj": 11653.28/"energy_per_token_mj": -11653.28/' "energy_per_token_mj"
bad_variant fp3 's/"precision": "INT8"/"precision": "FP3"/' "precision"
bad_variant params-negative 's/"params_b": 7.0/"params_b": -1/' "params_b"
bad_variant yesterday 's/"timestamp_utc": "[^"]*"/"timestamp_utc": "yesterday"/' "timestamp_utc"
bad_variant many 's/"iterations": 10/"iterations": "many"/' "iterations"
bad_variant contradiction 's/"vs_fp16_energy_pct": 105.88/"vs_fp16_energy_pct": 12.5/' "vs_fp16_energy_pct"
expect_status 0 "$EC" aggregate --db "$DB" --format csv
[ "$(grep -c '^' "$WORK/out")" -eq 2 ] && ok || bad "the store holds more than the one valid run: $(cat "$WORK/out")"

# A report re-saved as compact JSON is the same run.
tr -d '\n' <"$GOOD" | sed 's/: /:/g; s/, /,/g' >"$WORK/compact.json"
expect_status 0 "$EC" ingest --db "$DB" "$WORK/compact.json"
expect_in "$WORK/out" "0 new, 0 updated, 1 unchanged"

# The illustrative example is refused by ingest and never measured anywhere else.
ILL="$FIX/original/energy.measured.illustrative.json"
expect_status 3 "$EC" ingest --db "$WORK/ill.sqlite" "$ILL"
expect_in "$WORK/err" "illustrative"
expect_status 3 "$EC" check-regression "$ILL"
expect_in "$WORK/err" "not graded"
expect_status 1 "$EC" fit --allow-few-points "$ILL"

# The August sessions: comparable once spellings are normalised; July against August by session.
A19="$FIX/original/rtx4090_paired_energy_quality_2026-08-19.csv"
A20="$FIX/original/rtx4090_int8_repeats_2026-08-20.csv"
expect_status 0 "$EC" compare "$A19" "$A20" --format csv
expect_in "$WORK/err" "comparable: every recorded version agrees"
expect_status 0 "$EC" ingest --db "$WORK/s.sqlite" "$FIX/original/measured.csv" "$A20"
expect_status 0 "$EC" compare --db "$WORK/s.sqlite" --format csv "RTX 4090 July 2026 (measured.csv)" \
  "2026-08-20 RTX 4090 INT8 repeatability (3 replicates per size)"
expect_in "$WORK/out" "RTX 4090 TinyLlama-1.1B INT8,1.1,1,146.1103,,3,307.09,1.7608,160.9797,"

# fit on both published CSVs; the summary CSV against the published one.
expect_status 0 "$EC" fit "$A19" "$A20" --format csv
expect_in "$WORK/err" "ada INT8: 10 point(s):"
expect_status 0 "$EC" aggregate "$A20" --summary-csv "$WORK/summary.csv" --format csv
cmp "$WORK/summary.csv" "$FIX/original/rtx4090_int8_repeats_2026-08-20.summary.csv" && ok ||
  bad "summary CSV differs: $(diff "$WORK/summary.csv" "$FIX/original/rtx4090_int8_repeats_2026-08-20.summary.csv" | head -5)"
finish
