# A CPU sweep with the quality probe and no energy meter (no powercap tree): its KL and top-1
# against FP16 show in the sweep summary, `aggregate` (csv, json, md), `compare` and the site's
# data, each the mean of its reports' figures; its energy stays absent everywhere.
source "$(dirname "$0")/lib.bash"
command -v jq >/dev/null || { echo "jq is required"; exit 1; }

# A short corpus and window keep the probe to a second per cell.
head -c 3000 "$SRC/data/eval_text.txt" >"$WORK/eval.txt"
expect_status 0 "$EC" sweep --models tiny-qwen2 --precisions INT8,NF4 --repeats 2 --new-tokens 4 \
  --iterations 1 --warmup 0 --backend cpu --out "$WORK/q" --format csv \
  -- --threads 1 --quality-text "$WORK/eval.txt" --quality-seq-len 64
DB="$WORK/q/store.sqlite"

# The expected figures: the mean over each precision's two reports, rounded to 4 decimals as the
# tables write them.
want() {  # want PRECISION FIELD
  jq -s --arg p "$1" --arg f "$2" \
    '[.[] | select(.workload.precision == $p) | .quality[$f]] | add / length * 10000 | round / 10000' \
    "$WORK"/q/cells/*/energy.json
}
for p in INT8 NF4; do
  for f in mean_kl_vs_fp16 top1_agreement_vs_fp16; do
    v=$(want "$p" "$f")
    [[ "$v" =~ ^[0-9.]+$ ]] && ok || bad "reports carry no $f for $p: '$v'"
    printf -v "WANT_${p}_${f}" '%s' "$v"
  done
done
[ "$WANT_NF4_mean_kl_vs_fp16" != "$WANT_INT8_mean_kl_vs_fp16" ] && ok || bad "INT8 and NF4 KL are equal"

# csv_value FILE KEY_COLUMN KEY VALUE_COLUMN: the cell of the row whose KEY_COLUMN is KEY (or, for
# the column `configuration`, names precision KEY: "AMD EPYC tiny-qwen2 INT8/int8-llm").
csv_value() {
  python3 - "$@" <<'PY'
import csv, sys
path, key_col, key, col = sys.argv[1:]
for row in csv.DictReader(open(path, newline="")):
    if row[key_col] == key or (key_col == "configuration" and f" {key}/" in row[key_col]):
        print(row[col]); break
PY
}
same() {  # same GOT WANT WHAT: equal as numbers
  if python3 -c "import sys; sys.exit(0 if abs(float('$1') - float('$2')) <= 1e-9 else 1)" 2>/dev/null; then
    ok; else bad "$3: expected $2, got '$1'"; fi
}

# 1. The sweep summary (our own layout: the columns at its end).
head -1 "$WORK/q/summary.csv" | grep -q ',mean_kl_vs_fp16_mean,top1_agreement_vs_fp16_mean$' && ok ||
  bad "summary.csv header: $(head -1 "$WORK/q/summary.csv")"
for p in INT8 NF4; do
  kl="WANT_${p}_mean_kl_vs_fp16"; top1="WANT_${p}_top1_agreement_vs_fp16"
  same "$(csv_value "$WORK/q/summary.csv" precision "$p" mean_kl_vs_fp16_mean)" "${!kl}" "summary KL $p"
  same "$(csv_value "$WORK/q/summary.csv" precision "$p" top1_agreement_vs_fp16_mean)" "${!top1}" "summary top-1 $p"
done

# 2. aggregate on the sweep's store: the CPU runs are summarised (exit 0), energy absent.
expect_status 0 "$EC" aggregate --db "$DB" --format csv
cp "$WORK/out" "$WORK/agg.csv"
expect_in "$WORK/err" "4 run(s) without an energy meter (basis 'unavailable'): in throughput and quality, not in energy"
for p in INT8 NF4; do
  kl="WANT_${p}_mean_kl_vs_fp16"; top1="WANT_${p}_top1_agreement_vs_fp16"
  same "$(csv_value "$WORK/agg.csv" precision "$p" mean_kl_vs_fp16)" "${!kl}" "aggregate KL $p"
  same "$(csv_value "$WORK/agg.csv" precision "$p" top1_agreement_vs_fp16)" "${!top1}" "aggregate top-1 $p"
  [ "$(csv_value "$WORK/agg.csv" precision "$p" n)" == 2 ] && ok || bad "aggregate n for $p"
  [ -z "$(csv_value "$WORK/agg.csv" precision "$p" energy_j_per_1k_tok_mean)" ] && ok ||
    bad "aggregate invented an energy for an unmetered $p run"
  [ -n "$(csv_value "$WORK/agg.csv" precision "$p" throughput_tok_s_mean)" ] && ok || bad "no throughput for $p"
done
expect_status 0 "$EC" aggregate --db "$DB" --format json
jq -e --argjson kl "$WANT_NF4_mean_kl_vs_fp16" \
  '[.[] | select(.precision == "NF4") | .mean_kl_vs_fp16] == [$kl]' "$WORK/out" >/dev/null && ok ||
  bad "aggregate json: $(head -c 300 "$WORK/out")"
expect_status 0 "$EC" aggregate --db "$DB" --format md
expect_in "$WORK/out" "| KL vs FP16 | top-1 |"
expect_in "$WORK/out" "$WANT_NF4_top1_agreement_vs_fp16"
# The published summary CSV holds measured configurations only, as the original's does.
expect_status 0 "$EC" aggregate --db "$DB" --summary-csv "$WORK/published.csv" --format csv
[ "$(wc -l <"$WORK/published.csv")" -eq 1 ] && ok || bad "published summary gained unmetered rows"

# 3. compare: the same reports a year later (another run: its id hashes the timestamp), as a second
# session, pair on quality.
mkdir "$WORK/b"
for f in "$WORK"/q/cells/*/energy.json; do
  jq '.timestamp_utc |= sub("^(?<y>[0-9]+)-"; "\(.y | tonumber + 1)-")' "$f" >"$WORK/b/$(basename "$(dirname "$f")").json"
done
expect_status 0 "$EC" ingest --db "$WORK/two.sqlite" --session first "$WORK/q/cells"
expect_status 0 "$EC" ingest --db "$WORK/two.sqlite" --session again "$WORK/b"
expect_status 0 "$EC" compare --db "$WORK/two.sqlite" first again --format csv
cp "$WORK/out" "$WORK/cmp.csv"
for p in INT8 NF4; do
  kl="WANT_${p}_mean_kl_vs_fp16"; top1="WANT_${p}_top1_agreement_vs_fp16"
  same "$(csv_value "$WORK/cmp.csv" configuration "$p" kl_a_mean)" "${!kl}" "compare KL A $p"
  same "$(csv_value "$WORK/cmp.csv" configuration "$p" top1_b_mean)" "${!top1}" "compare top-1 B $p"
done

# 4. The site: the measured page's data carries the same means.
expect_status 0 "$EC" site --db "$DB" --out "$WORK/site"
for p in INT8 NF4; do
  kl="WANT_${p}_mean_kl_vs_fp16"; top1="WANT_${p}_top1_agreement_vs_fp16"
  got=$(jq --arg p "$p" '.configs[] | select(.precision == $p) | .mean_kl_vs_fp16.mean * 10000 | round / 10000' "$WORK/site/data/site-data.json")
  same "$got" "${!kl}" "site KL $p"
  got=$(jq --arg p "$p" '.configs[] | select(.precision == $p) | .top1_agreement_vs_fp16.mean * 10000 | round / 10000' "$WORK/site/data/site-data.json")
  same "$got" "${!top1}" "site top-1 $p"
done
jq -e '[.configs[] | .energy_j_per_1k_tok] == [null, null]' "$WORK/site/data/site-data.json" >/dev/null && ok ||
  bad "the site shows an energy for unmetered runs"
grep -q 'top1_agreement_vs_fp16' "$WORK/site/assets/js/measured.js" && ok || bad "measured.js shows no top-1"

finish
