# The site's report grader (assets/js/report-grader.js: the C++ compiled to WebAssembly) run in
# Node.js gives, for every fixture report and for broken variants of one, what the command line
# gives: the row `check-regression --format json` prints (run id included: a report without one gets
# the content hash `ingest` gives it), or a refusal in the same words; and KL and top-1 as the
# store holds them.
source "$(dirname "$0")/lib.bash"
command -v node >/dev/null || { echo "SKIP: no node"; exit 0; }
command -v jq >/dev/null || { echo "jq is required"; exit 1; }
FX="$SRC/tests/fixtures"
expect_status 0 "$EC" site "$FX/original/measured.csv" --out "$WORK/site"
GRADER="$WORK/site/assets/js/report-grader.js"
CURVES="$WORK/site/data/curves.json"
[ -s "$GRADER" ] && ok || bad "the site has no assets/js/report-grader.js"

# Broken variants: a wrong type, a value out of range, an inconsistent total, not JSON at all.
Q="$SRC/tests/browser/cpu_tiny_qwen2_nf4.energy.json"
mkdir -p "$WORK/bad"
jq '.quality.mean_kl_vs_fp16 = "0.04"' "$Q" >"$WORK/bad/kl-type.json"
jq '.quality.top1_agreement_vs_fp16 = 1.5' "$Q" >"$WORK/bad/top1-range.json"
jq '.results.total_energy_joules = 1' "$FX/analysis/original_int8_7b.energy.json" >"$WORK/bad/total.json"
head -c 300 "$FX/analysis/original_int8_7b.energy.json" >"$WORK/bad/truncated.json"
jq 'del(.quality.mean_kl_vs_fp16, .quality.top1_agreement_vs_fp16)' "$Q" >"$WORK/bad/no-quality-figures.json"

files=()
while IFS= read -r f; do files+=("$f"); done < <(
  find "$FX/report" "$FX/analysis" "$FX/original" "$SRC/tests/browser" "$WORK/bad" -name '*.json' | sort)
[ "${#files[@]}" -ge 15 ] && ok || bad "expected at least 15 reports, found ${#files[@]}"

# What the grader makes of each file, one JSON line per file.
node - "$GRADER" "$CURVES" "${files[@]}" >"$WORK/grader.jsonl" <<'JS' || bad "the grader did not run"
const fs = require("fs"), crypto = require("crypto");
const [grader, curves, ...files] = process.argv.slice(2);
require(grader)().then((g) => {
  const c = fs.readFileSync(curves, "utf8");
  for (const f of files) {
    let r = JSON.parse(g.examine(fs.readFileSync(f, "latin1"), f, "", c, 2));
    if (r.identity) {
      const id = "content:" + crypto.createHash("sha256").update(r.identity, "utf8").digest("hex").slice(0, 16);
      r = JSON.parse(g.examine(fs.readFileSync(f, "latin1"), f, id, c, 2));
    }
    console.log(JSON.stringify({ file: f, r: r }));
  }
});
JS

graded=0; refused=0
for f in "${files[@]}"; do
  mine=$(jq -c --arg f "$f" 'select(.file == $f) | .r' "$WORK/grader.jsonl")
  [ -n "$mine" ] || { bad "$f: the grader gave nothing"; continue; }
  rc=0
  "$EC" check-regression "$f" --curves "$CURVES" --format json >"$WORK/cli.out" 2>"$WORK/cli.err" || rc=$?
  if [ "$rc" -le 1 ]; then
    want=$(jq -c '.[0] // .' "$WORK/cli.out" | jq -S -c .)
    got=$(jq -S -c '.check' <<<"$mine")
    [ "$want" == "$got" ] && ok || bad "$f: check-regression prints $want, the grader $got"
    graded=$((graded + 1))
  else
    [ "$rc" -eq 3 ] && ok || bad "$f: check-regression exits $rc, expected 3 (not graded): $(cat "$WORK/cli.err")"
    why=$(jq -r '.read_error // .grade_error // empty' <<<"$mine")
    [ -n "$why" ] && ok || bad "$f: the command line refuses it (exit $rc), the grader does not: $mine"
    # The command line's message is the grader's, with " (not graded)" after it.
    [ -n "$why" ] && { grep -qF -- "$why" "$WORK/cli.err" && ok || bad "$f: '$why' not in: $(cat "$WORK/cli.err")"; }
    refused=$((refused + 1))
  fi
done
[ "$graded" -ge 2 ] && [ "$refused" -ge 5 ] && ok || bad "graded $graded, refused $refused: the fixtures should cover both"

# KL and top-1 as the store holds them, to the last bit; absent stays null.
expect_status 0 "$EC" ingest --db "$WORK/s.sqlite" "$Q"
cpp=$(sqlite3 "$WORK/s.sqlite" "select printf('%!.17g %!.17g', mean_kl_vs_fp16, top1_agreement_vs_fp16) from runs")
js=$(jq -r --arg f "$Q" 'select(.file == $f) | "\(.r.row.mean_kl_vs_fp16) \(.r.row.top1_agreement_vs_fp16)"' "$WORK/grader.jsonl")
python3 -c "
import sys
a, b = [float(x) for x in '$cpp'.split()], [float(x) for x in '$js'.split()]
sys.exit(0 if a == b and a[0] > 0 else 1)" && ok || bad "the grader read '$js', the store holds '$cpp'"
absent=$(jq -r 'select(.file | endswith("no-quality-figures.json")) | "\(.r.row.mean_kl_vs_fp16) \(.r.row.top1_agreement_vs_fp16)"' "$WORK/grader.jsonl")
[ "$absent" == "null null" ] && ok || bad "absent KL and top-1 read as '$absent'"
for case in "kl-type.json|field 'quality.mean_kl_vs_fp16': expected a number, got string" \
            "top1-range.json|expected a fraction from 0 to 1, got 1.5"; do
  file="${case%%|*}"; words="${case#*|}"
  jq -r --arg f "$WORK/bad/$file" 'select(.file == $f) | .r.read_error' "$WORK/grader.jsonl" >"$WORK/why"
  expect_in "$WORK/why" "$words"
done

finish
