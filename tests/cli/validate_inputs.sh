# `validate`: the original's example is read but is not ours to pass; broken files are named.
source "$(dirname "$0")/lib.bash"

printf '{"schema_version": ' >"$WORK/truncated.json"
expect_status 1 "$EC" validate "$WORK/truncated.json"
grep -qF "truncated.json" "$WORK/out" "$WORK/err" && ok || bad "truncated.json not named"
# The problem is an error line on stderr, in the form every command uses (docs/exit-codes.md).
grep -q "^ecocompute: error: .*truncated.json" "$WORK/err" && ok || bad "no error line: $(cat "$WORK/err")"
expect_status 1 "$EC" validate "$WORK/does-not-exist.json"
grep -qF "does-not-exist.json" "$WORK/out" "$WORK/err" && ok || bad "missing file not named"
expect_status 2 "$EC" validate
grep -q "^ecocompute: error: " "$WORK/err" && ok || bad "usage error not in the error form"
finish
