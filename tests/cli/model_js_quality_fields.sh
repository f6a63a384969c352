# web/js/model.js's parseReport (the replications page's reader) reads quality.mean_kl_vs_fp16 and
# quality.top1_agreement_vs_fp16 as import_report.cpp does: the same values, null when absent, and a
# wrong type or range refused with the same words, naming the file and the field.
source "$(dirname "$0")/lib.bash"
command -v node >/dev/null || { echo "SKIP: no node"; exit 0; }
command -v jq >/dev/null || { echo "jq is required"; exit 1; }
REPORT="$SRC/tests/browser/cpu_tiny_qwen2_nf4.energy.json"

# parse FILE: what parseReport makes of it, as "kl top1", or "error: MESSAGE".
parse() {
  node - "$SRC/web/js/model.js" "$1" <<'JS'
const fs = require("fs"), vm = require("vm");
const [model, file] = process.argv.slice(2);
const window = { EC: {} };
vm.runInNewContext(fs.readFileSync(model, "utf8"), { window: window });
try {
  const row = window.EC.model.parseReport(fs.readFileSync(file, "utf8"), "r.json");
  console.log(`${JSON.stringify(row.mean_kl_vs_fp16)} ${JSON.stringify(row.top1_agreement_vs_fp16)}`);
} catch (e) {
  console.log("error: " + e.message);
}
JS
}

# The values: what the C++ reader stores, to the last bit (SQLite's %!.17g prints all 17 digits).
expect_status 0 "$EC" ingest --db "$WORK/s.sqlite" "$REPORT"
cpp=$(sqlite3 "$WORK/s.sqlite" "select printf('%!.17g %!.17g', mean_kl_vs_fp16, top1_agreement_vs_fp16) from runs")
js=$(parse "$REPORT")
python3 -c "
import sys
a, b = [float(x) for x in '$cpp'.split()], [float(x) for x in '$js'.split()]
sys.exit(0 if a == b and a[0] > 0 else 1)" && ok || bad "parseReport read '$js', the store holds '$cpp'"

# Absent: null, never 0.
jq 'del(.quality.mean_kl_vs_fp16, .quality.top1_agreement_vs_fp16)' "$REPORT" >"$WORK/absent.json"
[ "$(parse "$WORK/absent.json")" == "null null" ] && ok || bad "absent fields: $(parse "$WORK/absent.json")"

# A wrong type and a top-1 out of range: both readers refuse, in the same words.
jq '.quality.mean_kl_vs_fp16 = "0.04"' "$REPORT" >"$WORK/type.json"
jq '.quality.top1_agreement_vs_fp16 = 1.5' "$REPORT" >"$WORK/range.json"
for case in "type.json|field 'quality.mean_kl_vs_fp16': expected a number, got string" \
            "range.json|expected a fraction from 0 to 1, got 1.5"; do
  file="${case%%|*}"; words="${case#*|}"
  expect_status 3 "$EC" ingest --db "$WORK/bad.sqlite" "$WORK/$file"
  expect_in "$WORK/err" "$WORK/$file"
  expect_in "$WORK/err" "$words"
  parse "$WORK/$file" >"$WORK/js.out"
  expect_in "$WORK/js.out" "error: r.json: field 'quality."
  expect_in "$WORK/js.out" "$words"
done

finish
