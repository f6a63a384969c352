# Shared helpers for the CLI tests: each test gets the binary as $1 and the source tree as $2.
set -euo pipefail
EC="$1"
SRC="$2"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export EC_NO_PROGRESS=1
# CPU runs meter RAPL where it reads: the tests see no powercap tree unless they give one.
export EC_POWERCAP_ROOT="$WORK/no-powercap"
failures=0
passes=0

ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_status CODE CMD...: runs CMD, checks its exit status; output goes to $WORK/out and $WORK/err.
expect_status() {
  local want="$1"; shift
  local got=0
  "$@" >"$WORK/out" 2>"$WORK/err" || got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "expected exit $want, got $got: $* ($(head -c 400 "$WORK/err"))"; fi
}

# expect_in FILE TEXT: FILE contains TEXT.
expect_in() {
  if grep -qF -- "$2" "$1"; then ok; else bad "$1 does not contain '$2': $(head -c 400 "$1")"; fi
}

finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
