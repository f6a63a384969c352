# `ecocompute serve`: the site and the /v1 API over HTTP with curl — answers equal to the CLI,
# malformed and oversized requests refused with 4xx JSON, still serving afterwards, clean SIGTERM.
source "$(dirname "$0")/lib.bash"
if ! "$EC" serve --help >/dev/null 2>&1; then echo "SKIP: built without cpp-httplib"; exit 0; fi
FX="$SRC/tests/fixtures"
"$EC" fit "$FX/original/measured.csv" --out "$WORK/curves.json" --format csv >/dev/null

"$EC" serve "$FX/original/rtx4090_paired_energy_quality_2026-08-19.csv" --curves "$WORK/curves.json" \
  --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do grep -q "serving" "$WORK/serve.out" && break; sleep 0.1; done
URL=$(sed -n 's/.*\(http:\/\/127.0.0.1:[0-9]*\)\/.*/\1/p' "$WORK/serve.out")
[ -n "$URL" ] && ok || { bad "serve did not start: $(cat "$WORK/serve.err")"; finish; }

# status URL [curl args...]: the HTTP status, body in $WORK/body.
status() { local u="$1"; shift; curl -s -o "$WORK/body" -w '%{http_code}' "$@" "$u" || echo 000; }
expect_code() {
  local want="$1"; shift
  local got; got=$(status "$@")
  if [ "$got" = "$want" ]; then ok; else bad "expected $want, got $got: $1 $(head -c 200 "$WORK/body")"; fi
}

expect_code 200 "$URL/" -H "Accept: text/html"
expect_in "$WORK/body" "<title>"
expect_code 200 "$URL/"
expect_in "$WORK/body" '"ecocompute-estimator"'
expect_code 200 "$URL/v1/architectures"
expect_in "$WORK/body" '"borrows_from"'
expect_code 200 "$URL/v1/optimize?params_b=7&arch=ada&max_vram_gb=16"
expect_in "$WORK/body" '"recommended"'
expect_code 200 "$URL/v1/estimate" -X POST -H 'Content-Type: application/json' -d '{"q": "13B on A100 int8 batch 32"}'
expect_in "$WORK/body" '"modelled": true'
expect_code 204 "$URL/v1/estimate" -X OPTIONS
expect_code 200 "$URL/estimate.html"
expect_code 200 "$URL/data/site-data.js"
expect_code 200 "$URL/v1/curves"
expect_in "$WORK/body" '"turing"'

# The API equals the CLI for several inputs.
for q in "7 ada NF4" "0.5 ada INT8" "13 blackwell NF4" "70 hopper INT8" "2.2 turing NF4"; do
  set -- $q
  expect_code 200 "$URL/v1/estimate?params_b=$1&arch=$2&precision=$3"
  "$EC" estimate --params-b "$1" --arch "$2" --precision "$3" --curves "$WORK/curves.json" --format json >"$WORK/cli.json"
  if python3 - "$WORK/body" "$WORK/cli.json" <<'PY'
import json, sys
api = json.load(open(sys.argv[1])); cli = json.load(open(sys.argv[2]))
bad = [k for k in set(api) | set(cli) if api.get(k) != cli.get(k)]
sys.exit(1 if bad else 0) if not bad else (print("differ:", bad, api, cli), sys.exit(1))
PY
  then ok; else bad "API and CLI differ for $q"; fi
done

# Refusals: 4xx with a JSON error.
for q in "params_b=abc&arch=ada&precision=NF4" "arch=ada&precision=NF4" "params_b=7&arch=volta&precision=NF4" \
         "params_b=7&arch=ada&precision=FP8" "params_b=-2&arch=ada&precision=NF4" "params_b=nan&arch=ada&precision=NF4" \
         "params_b=7&arch=ada&precision=NF4&debug=1" "params_b=1e999&arch=ada&precision=NF4"; do
  expect_code 400 "$URL/v1/estimate?$q"
  expect_in "$WORK/body" '"error"'
done
expect_code 404 "$URL/v1/nothing"
expect_code 404 "$URL/../../etc/passwd" --path-as-is
expect_code 400 "$URL/v1/estimate" -X POST -d '{}'
expect_code 405 "$URL/v1/architectures" -X POST -d '{}'
expect_code 405 "$URL/index.html" -X POST -d '{}'
head -c 100000 /dev/zero | tr '\0' x >"$WORK/big"
expect_code 413 "$URL/v1/estimate" -X POST --data-binary "@$WORK/big"
expect_code 414 "$URL/v1/estimate?params_b=$(head -c 10000 /dev/zero | tr '\0' 7)&arch=ada&precision=NF4"
code=$(status "$URL/v1/estimate?params_b=7&arch=ada&precision=NF4" -H "X-Big: $(head -c 12000 /dev/zero | tr '\0' h)")
case "$code" in 4*) ok ;; *) bad "a 12 kB header got $code" ;; esac

# Still serving, and correctly.
expect_code 200 "$URL/v1/estimate?params_b=7&arch=ada&precision=NF4"
expect_in "$WORK/body" '"delta_pct": -28.5'
kill -TERM $PID
wait $PID; rc=$?
[ "$rc" -eq 0 ] && ok || bad "serve exited $rc on SIGTERM"
expect_in "$WORK/serve.out" "stopped"

# Usage errors.
expect_status 2 "$EC" serve --port 70000
expect_status 1 "$EC" serve --curves "$WORK/missing-curves.json" --port 0
expect_in "$WORK/err" "missing-curves.json"
finish
