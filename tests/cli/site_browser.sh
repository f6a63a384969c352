# The report site in headless Chromium (tests/browser/cdp_check.py over --remote-debugging-pipe):
# every page loads without console errors from file:// and from `ecocompute serve`; the
# replications page grades fixture reports given through the file input exactly as
# `check-regression` does; the estimate form equals `ecocompute estimate --format json`.
# Screenshots go to $WORK/shots, and to $EC_SCREENSHOT_DIR when set.
source "$(dirname "$0")/lib.bash"
CHROMIUM="${EC_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ] || ! command -v python3 >/dev/null; then
  echo "SKIP: no chromium or python3"; exit 0
fi
FX="$SRC/tests/fixtures"
BR="$SRC/tests/browser"

# A store from the published CSV, the synthetic repeats and three reports (one a CPU run without an
# energy meter, with KL and top-1); curves from measured.csv.
expect_status 0 "$EC" ingest --db "$WORK/r.sqlite" "$FX/original/rtx4090_paired_energy_quality_2026-08-19.csv" \
  "$FX/analysis/rtx4090_int8_repeats_synthetic.csv" "$FX/analysis/ecocompute_nf4_1p1.energy.json" \
  "$FX/original/energy.no-gpu.example.json" "$BR/cpu_tiny_qwen2_nf4.energy.json"
expect_status 0 "$EC" site --db "$WORK/r.sqlite" "$FX/original/measured.csv" --out "$WORK/site"
CURVES="$WORK/site/data/curves.json"

# Expectations from the command line itself.
python3 - "$EC" "$CURVES" "$WORK" "$FX" "$BR" >"$WORK/plan.json" <<'PY' || bad "could not write the plan"
import json, subprocess, sys
ec, curves, work, fx, br = sys.argv[1:]
def cli(*args):
    p = subprocess.run([ec, *args, "--curves", curves, "--format", "json"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr
reps = []
for f, shot in [(f"{fx}/analysis/original_int8_7b.energy.json", "replications-regression.png"),
                (f"{br}/within_ada_nf4_3b.energy.json", "replications-within.png"),
                (f"{fx}/original/energy.no-gpu.example.json", None),
                (f"{fx}/report/measured-int8.energy.json", None)]:
    rc, out, err = cli("check-regression", f)
    case = {"file": f, "screenshot": shot}
    if rc in (0, 1) and out.strip():
        row = json.loads(out)
        row = row[0] if isinstance(row, list) else row
        case["verdict"] = row["verdict"]
        case["row"] = row
    else:
        case["verdict"] = "not graded"
        # The CLI's reason, without its "ecocompute: error: <path>: " prefix.
        case["error_contains"] = err.strip().split(": ", 3)[-1][:60]
    reps.append(case)
ests = []
for i, (n, arch, prec) in enumerate([("7", "ada", "NF4"), ("0.5", "ada", "INT8"), ("13", "blackwell", "NF4"),
                                      ("70", "hopper", "INT8"), ("3.0", "turing", "NF4"), ("1.1", "ampere", "NF4")]):
    rc, out, err = cli("estimate", "--params-b", n, "--arch", arch, "--precision", prec)
    assert rc == 0, err
    e = json.loads(out)
    row = {"params_b": e["input"]["params_b"], "arch": e["input"]["arch"], "precision": e["input"]["precision"],
           "delta_pct": e["delta_pct"], "ci_low": e["ci"][0], "ci_high": e["ci"][1], "basis": e["basis"],
           "confidence": e["confidence"], "recommendation": e["recommendation"],
           "energy_j_per_1k_tok": e["energy_j_per_1k_tok"]}
    ests.append({"params_b": n, "arch": arch, "precision": prec, "expect": row,
                 "screenshot": "estimate-hopper-int8-70b.png" if arch == "hopper" else None})
json.dump({"bases": [], "pages": ["index.html", "measured.html", "sessions.html", "method.html",
                                    "replications.html", "estimate.html"],
           "screenshots": work + "/shots", "replications": reps, "estimates": ests,
           # The CPU report's KL (1.22299…) and top-1 (0.55173…), as the measured table writes them.
           "measured_row_has": ["tiny-qwen2", "1.2230", "55.2 %"]}, sys.stdout, indent=1)
PY
grep -q '"verdict": "regression"' "$WORK/plan.json" && ok || bad "the 7B INT8 fixture should be a regression by the CLI"
grep -q '"verdict": "within"' "$WORK/plan.json" && ok || bad "the 3B NF4 fixture should be within by the CLI"

# The same site over HTTP from `ecocompute serve` on a free port.
"$EC" serve --db "$WORK/r.sqlite" "$FX/original/measured.csv" --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do grep -q "serving" "$WORK/serve.out" && break; sleep 0.1; done
URL=$(sed -n 's/.*\(http:\/\/[^ ]*\/\).*/\1/p' "$WORK/serve.out")
[ -n "$URL" ] && ok || bad "serve did not start: $(cat "$WORK/serve.err")"
python3 - "$WORK/plan.json" "file://$WORK/site/" "$URL" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["bases"] = [b for b in sys.argv[2:] if b]
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
if timeout 200 python3 "$BR/cdp_check.py" "$WORK/plan.json"; then ok; else bad "browser checks failed"; fi
for page in index measured sessions method replications estimate; do
  [ -s "$WORK/shots/$page.png" ] && ok || bad "no screenshot of $page"
done
kill -TERM $SERVE_PID; wait $SERVE_PID 2>/dev/null
finish
