# `run`'s statistics and formats, several precisions against one FP16 baseline, the checks made
# before anything is measured (run, sweep, measure), the CPU package meter in run's path, sessions
# and their prefixes, check-regression reading standard input and `-` for standard input.
source "$(dirname "$0")/lib.bash"
TINY=(--model tiny-qwen2 --iterations 3 --warmup 1 --new-tokens 8 --no-quality)

# 1. Bad paths and names fail before the model loads (the log's first line is "loading model").
expect_status 1 "$EC" run "${TINY[@]}" --out "$WORK/missing/energy.json"
expect_in "$WORK/err" "does not exist"
grep -q "loading model" "$WORK/err" && bad "a bad --out folder was found only after loading" || ok
expect_status 1 "$EC" run "${TINY[@]}" --tokenizer "$WORK/none.json" --out "$WORK/e.json"
expect_in "$WORK/err" "none.json"
grep -q "loading model" "$WORK/err" && bad "a missing tokenizer was found only after loading" || ok
expect_status 1 "$EC" run --model tiny-qwen2 --new-tokens 600 --out "$WORK/e.json"
expect_in "$WORK/err" "context"
expect_status 2 "$EC" run "${TINY[@]}" --format xml --out "$WORK/e.json"
[ ! -e "$WORK/e.json" ] && ok || bad "a refused run left a report"

# 2. Two precisions, one baseline: a schema-valid report each, both carrying the same FP16 run.
expect_status 0 "$EC" run "${TINY[@]}" --precision int8,Nf4 --format json --out "$WORK/e.json"
cp "$WORK/out" "$WORK/run.json"
expect_status 0 "$EC" validate "$WORK/e-int8.json" "$WORK/e-nf4.json"
python3 - "$WORK" <<'PY' && ok || bad "the two reports or the json summary are wrong: $(head -c 600 "$WORK/run.json")"
import json, sys
w = sys.argv[1]
a, b = (json.load(open(f"{w}/e-{p}.json")) for p in ("int8", "nf4"))
assert a["workload"]["precision"] == "INT8" and b["workload"]["precision"] == "NF4"
assert a["baseline"]["iterations"] == b["baseline"]["iterations"], "the baseline is not shared"
rows = json.load(open(f"{w}/run.json"))
assert [r["precision"] for r in rows] == ["FP16", "INT8", "NF4"], rows
for r in rows:
    assert r["iterations"] == 3
    assert r["tok_s_min"] <= r["tok_s_mean"] <= r["tok_s_max"], r
    assert r["tok_s_sd"] >= 0
    assert r["j_per_1k_tok_mean"] is None  # no meter on this machine's CPU
assert rows[1]["report"].endswith("e-int8.json") and rows[2]["report"].endswith("e-nf4.json")
PY
expect_status 0 "$EC" run "${TINY[@]}" --format csv --out "$WORK/c.json"
head -1 "$WORK/out" | grep -q "^precision,weight_format,backend,iterations,tok_s_mean,tok_s_sd" && ok || bad "csv header: $(head -1 "$WORK/out")"
expect_status 0 "$EC" run "${TINY[@]}" --format jsonl --out "$WORK/l.json"
[ "$(wc -l <"$WORK/out")" -eq 2 ] && ok || bad "jsonl: expected 2 lines: $(cat "$WORK/out")"
expect_status 0 "$EC" run "${TINY[@]}" --out "$WORK/m.json"
expect_in "$WORK/out" "±"
expect_in "$WORK/out" "…"

# 3. The CPU's RAPL counters in run's path: measured through a powercap tree, unavailable without.
EC_POWERCAP_ROOT="$SRC/tests/fixtures/meter/powercap" expect_status 0 "$EC" run "${TINY[@]}" --precision FP16 --out "$WORK/rapl.json"
expect_in "$WORK/rapl.json" '"measurement_source": "rapl_package_dram"'
expect_in "$WORK/rapl.json" '"basis": "measured"'
expect_status 0 "$EC" validate "$WORK/rapl.json"
expect_in "$WORK/m.json" '"basis": "unavailable"'
expect_in "$WORK/m.json" 'no powercap interface'

# 4. sweep checks every cell before running any.
expect_status 2 "$EC" sweep --models tiny-qwen2,no-such-model --precisions INT8 --repeats 1 --out "$WORK/sw"
expect_in "$WORK/err" "no-such-model"
[ -z "$(find "$WORK/sw" -name '*.json' 2>/dev/null)" ] && ok || bad "sweep ran cells before refusing"

# 5. measure: a bad --out fails before the command; no idle wait without a meter.
EC_NVML_LIBRARY="$WORK/no-libnvidia-ml.so" expect_status 1 "$EC" measure --out "$WORK/nodir/m.json" -- touch "$WORK/ran"
[ ! -e "$WORK/ran" ] && ok || bad "measure ran the command before refusing its --out"
EC_NVML_LIBRARY="$WORK/no-libnvidia-ml.so" expect_status 0 "$EC" measure --out "$WORK/meter.json" -- true
jq -e '.idle == null' "$WORK/meter.json" >/dev/null && ok || bad "measure took an idle baseline without a meter"

# 6. sessions, and prefixes wherever a session is named.
DB=(--db "$WORK/store.sqlite")
expect_status 0 "$EC" ingest "${DB[@]}" --session alpha-2026-12-01 "$WORK/e-int8.json"
expect_status 0 "$EC" ingest "${DB[@]}" --session alpha-2026-12-02 "$WORK/e-nf4.json"
expect_status 0 "$EC" ingest "${DB[@]}" --session beta-cpu "$WORK/c.json"
expect_status 0 "$EC" sessions "${DB[@]}" --format json
python3 -c "
import json,sys
rows=json.load(open('$WORK/out'))
assert [r['session'] for r in rows]==['alpha-2026-12-01','alpha-2026-12-02','beta-cpu'], rows
assert rows[0]['runs']==1 and rows[0]['precisions']=='INT8', rows" && ok || bad "sessions: $(cat "$WORK/out")"
expect_status 2 "$EC" compare "${DB[@]}" alpha beta
expect_in "$WORK/err" "alpha-2026-12-01, alpha-2026-12-02"
expect_status 2 "$EC" compare "${DB[@]}" gamma beta
expect_in "$WORK/err" "ecocompute sessions"

# 7. check-regression: a regression and "not graded" exit differently.
expect_status 1 "$EC" check-regression "$SRC/tests/fixtures/analysis/original_int8_7b.energy.json" --format json
expect_in "$WORK/out" '"regression"'
expect_status 3 "$EC" check-regression "$SRC/tests/fixtures/original/energy.no-gpu.example.json"
expect_in "$WORK/err" "not graded"

# 8. `-` reads standard input.
expect_status 0 "$EC" tokenize --tokenizer bytes --text-file - < <(printf 'hello, world')
cp "$WORK/out" "$WORK/stdin.ids"
expect_status 0 "$EC" tokenize --tokenizer bytes --text 'hello, world'
cmp -s "$WORK/out" "$WORK/stdin.ids" && ok || bad "tokenize --text-file - differs from --text"
expect_status 1 "$EC" check-regression - <"$SRC/tests/fixtures/analysis/original_int8_7b.energy.json"
expect_status 0 "$EC" validate - <"$WORK/e-int8.json"
finish
