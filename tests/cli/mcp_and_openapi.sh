# `ecocompute mcp` driven by the official MCP TypeScript SDK client (answers equal the original's),
# and the OpenAPI document `serve` answers validated as OpenAPI 3; both clients are the pinned npm
# packages of tests/js-clients (`make fixtures` installs them).
source "$(dirname "$0")/lib.bash"
CLIENTS="$SRC/tests/js-clients"
if [ ! -d "$CLIENTS/node_modules/@modelcontextprotocol/sdk" ]; then
  bad "tests/js-clients has no node_modules: run make fixtures"; finish
fi
if node "$CLIENTS/mcp-smoke.mjs" "$EC" "$SRC" >"$WORK/mcp.out" 2>&1 && grep -q '^OK$' "$WORK/mcp.out"; then
  ok
else
  bad "MCP smoke test: $(tail -20 "$WORK/mcp.out")"
fi

# The document as served, fetched over HTTP where serve is built; the file it is made from otherwise.
if "$EC" serve --help >/dev/null 2>&1; then
  "$EC" serve --curves "$SRC/tests/fixtures/original/estimator/curves.json" "$SRC/tests/fixtures/original/measured.csv" \
    --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
  PID=$!
  trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
  for _ in $(seq 1 100); do grep -q "serving" "$WORK/serve.out" && break; sleep 0.1; done
  URL=$(sed -n 's/.*\(http:\/\/127.0.0.1:[0-9]*\)\/.*/\1/p' "$WORK/serve.out")
  DOC="$URL/openapi.json"
else
  DOC="$SRC/data/api/openapi.json"
fi
if node "$CLIENTS/openapi-validate.mjs" "$DOC" >"$WORK/openapi.out" 2>&1; then ok; else bad "$(cat "$WORK/openapi.out")"; fi
finish
