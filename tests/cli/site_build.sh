# `ecocompute site`: writes every page and its data; bad inputs are named and skipped; a missing
# --out is a usage error; rebuilding over an existing site replaces it.
source "$(dirname "$0")/lib.bash"
FX="$SRC/tests/fixtures"
expect_status 0 "$EC" site "$FX/original/measured.csv" "$FX/original/rtx4090_paired_energy_quality_2026-08-19.csv" \
  --out "$WORK/site"
expect_in "$WORK/out" "6 curves fitted from measured.csv"
for f in index measured sessions method replications estimate; do
  [ -s "$WORK/site/$f.html" ] && ok || bad "no $f.html"
done
for f in data/site-data.js data/site-data.json data/curves.json assets/site.css assets/js/chart.js; do
  [ -s "$WORK/site/$f" ] && ok || bad "no $f"
done
# curves.json from the site is the one `fit` writes: `estimate` reads it.
expect_status 0 "$EC" estimate --params-b 7 --arch ada --precision NF4 --curves "$WORK/site/data/curves.json" --format csv
expect_in "$WORK/out" ",measured,"  # 7B NF4 was measured on ada: the anchor answers
# No page or script loads anything from the network.
if grep -qE '(src|href)="(https?:)?//' "$WORK/site"/*.html; then bad "a page loads from the network"; else ok; fi
scripts=$(ls "$WORK/site"/assets/js/*.js | grep -v '/report-grader.js$')
if grep -E 'fetch\(|XMLHttpRequest|https?://' $scripts | grep -qv 'www.w3.org/2000/svg'; then bad "a script reaches the network"; else ok; fi
# The report grader is emscripten's loader with the WebAssembly inlined: its fetch() is for a
# .wasm file it never needs, so it must carry the module as a data: URL and name no file or URL.
grader="$WORK/site/assets/js/report-grader.js"
expect_in "$grader" "data:application/octet-stream;base64,"
if grep -qE 'https?://|[A-Za-z0-9_-]+\.wasm' "$grader"; then bad "the grader names a URL or a .wasm file"; else ok; fi

printf '{"schema_version": ' >"$WORK/broken.json"
expect_status 0 "$EC" site "$FX/original/measured.csv" "$WORK/broken.json" --out "$WORK/site2"
expect_in "$WORK/err" "broken.json"
expect_in "$WORK/site2/data/site-data.json" "broken.json"
expect_status 2 "$EC" site "$FX/original/measured.csv"
expect_status 1 "$EC" site "$FX/original/measured.csv" --curves "$WORK/none.json" --out "$WORK/site3"
expect_in "$WORK/err" "none.json"
# Rebuilding over an existing site works (files are replaced atomically).
expect_status 0 "$EC" site "$FX/original/measured.csv" --out "$WORK/site"
finish
