# `validate`: the original's example is read but is not ours to pass; broken files are named.
source "$(dirname "$0")/lib.bash"

printf '{"schema_version": ' >"$WORK/truncated.json"
expect_status 1 "$EC" validate "$WORK/truncated.json"
grep -qF "truncated.json" "$WORK/out" "$WORK/err" && ok || bad "truncated.json not named"
expect_status 1 "$EC" validate "$WORK/does-not-exist.json"
grep -qF "does-not-exist.json" "$WORK/out" "$WORK/err" && ok || bad "missing file not named"
expect_status 2 "$EC" validate
finish
