#!/usr/bin/env bash
# `measure --marks`: the Python reference client on a fake workload under the fake libnvidia-ml,
# paired FP16 and INT8 sides, the report validated and ingested; the window rule, bad marks, a
# failing command and misused flags each fail with their reason.
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (scripts/install-deps.sh)"; exit 1; }
FAKE="$(cd "$(dirname "$EC")/.." && pwd)/tests/libfake_nvml.so"
[ -f "$FAKE" ] || { echo "FAIL: $FAKE not built (target fake_nvml)"; exit 1; }
WORKLOAD="$SRC/tests/cli/marks_fake_workload.py"
cat >"$WORK/nvml.json" <<'JSON'
{"devices": [{"name": "Fake H200", "architecture": 9, "power": [[0, 300]], "counter_period_s": 0.1}]}
JSON
export EC_NVML_LIBRARY="$FAKE" FAKE_NVML_SCRIPT="$WORK/nvml.json"
# The rule at 2 periods of the fake's 0.1 s counter: windows of at least 0.2 s, so many 20 ms
# generations go into each.
common=(measure --marks --idle-s 0.2 --min-window-periods 2)

# Two sides in one command: FP16 ("f") and INT8 ("q"), each 1 warmup + 2 iterations.
expect_status 0 "$EC" "${common[@]}" --precision INT8 --label q --fp16-label f --warmup 1 \
  --iterations 2 --out "$WORK/pair.json" -- python3 "$WORKLOAD" f:0.02,q:0.03 --iterations 2
expect_in "$WORK/out" "energy basis: measured"
expect_status 0 "$EC" validate "$WORK/pair.json"
if python3 - "$WORK/pair.json" <<'PY'; then ok; else bad "the paired report is not what was marked"; fi
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"]["backend"] == "external" and r["engine"]["external"]["label"] == "q", r["engine"]
assert r["baseline"]["engine"]["external"]["label"] == "f"
assert r["engine"]["external"]["versions"] == {"fake": "1.0"}
assert r["software"]["packages"]["fake"] == "1.0"
assert r["protocol"]["min_window_counter_periods"] == 2 and r["protocol"]["new_tokens"] == 8
for side in (r, r["baseline"]):
    assert len(side["iterations"]) == 2
    for it in side["iterations"]:
        assert it["generations"] > 1 and it["tokens"] == 8 * it["generations"], it
        assert it["seconds"] >= 0.2 - 1e-9, it
    assert [p["name"] for p in side["phases"]][-2:] == ["prefill", "decode"], side["phases"]
# Same power, slower generations: INT8 costs more per token than FP16 here.
assert r["results"]["vs_fp16_energy_pct"] > 20, r["results"]
assert r["phases"][0]["name"] == "idle"
PY
expect_status 0 "$EC" ingest --db "$WORK/db.sqlite" "$WORK/pair.json"
expect_in "$WORK/out" "1 new"
expect_status 0 "$EC" aggregate --db "$WORK/db.sqlite"
expect_in "$WORK/out" "fake-0.1b,0.1,INT8,int8-llm,1"

# An FP16-only command whose generations are not split: one "generate" window per iteration.
expect_status 0 "$EC" "${common[@]}" --out "$WORK/fp16.json" -- \
  python3 "$WORKLOAD" FP16:0.02 --no-split --iterations 2
expect_status 0 "$EC" validate "$WORK/fp16.json"
expect_in "$WORK/fp16.json" '"name": "generate"'

# The window rule: a command that marks one short generation per iteration fails with the reason.
cat >"$WORK/short.sh" <<'SH'
mark() { echo "$1" >&"$ECOCOMPUTE_MARKS_FD"; read -r reply <&"$ECOCOMPUTE_MARKS_FD"; echo "$reply"; }
mark "hello 1"; mark "info model m"; mark "info prompt_tokens 3"
mark "begin decode"; sleep 0.05; mark "end 256"
SH
# (30 periods, 3 s: the 50 ms window stays far below it however slow this machine is.)
expect_status 1 "$EC" measure --marks --idle-s 0 --min-window-periods 30 --out "$WORK/short.json" \
  -- bash "$WORK/short.sh"
expect_in "$WORK/out" "error side 'FP16', iteration 0"
expect_in "$WORK/err" "shorter than the window rule's 30 counter periods"
[ ! -e "$WORK/short.json" ] && ok || bad "a failed measurement wrote a report"

# Counts that differ from what was asked, a failing command, and flags without --marks.
expect_status 1 "$EC" "${common[@]}" --iterations 4 --out "$WORK/c.json" -- \
  python3 "$WORKLOAD" FP16:0.02 --iterations 2
expect_in "$WORK/err" "marked 2 measured iteration(s), expected 4"
expect_status 1 "$EC" "${common[@]}" --out "$WORK/c.json" -- python3 -c "import sys; sys.exit(3)"
expect_in "$WORK/err" "exited with status 3"
expect_status 2 "$EC" measure --marks --precision NF4 -- true
expect_in "$WORK/err" "needs its FP16 baseline"
expect_status 2 "$EC" measure --label x -- true
expect_in "$WORK/err" "--label needs --marks"

# Without the channel, the client is inert: the workload runs unmetered.
expect_status 0 python3 "$WORKLOAD" FP16:0.001 --iterations 1
finish
