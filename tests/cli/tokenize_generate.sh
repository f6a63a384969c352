# `tokenize` and `generate`: ids out, text back, JSON forms, logits dump, clear usage errors.
source "$(dirname "$0")/lib.bash"

expect_status 0 "$EC" tokenize --tokenizer bytes --text "Hi!" --json
expect_in "$WORK/out" "[72,105,33]"
expect_status 0 "$EC" tokenize --tokenizer bytes --decode --text "72,105,33"
expect_in "$WORK/out" "Hi!"

qwen="$SRC/tests/fixtures/npm/qwen3/tokenizer.json"
if [ -f "$qwen" ]; then
  expect_status 0 "$EC" tokenize --tokenizer "$qwen" --text "Hello world" --json
  expect_in "$WORK/out" "[9707,1879]"
  ids="$(cat "$WORK/out")"
  expect_status 0 "$EC" tokenize --tokenizer "$qwen" --decode --text "$ids"
  expect_in "$WORK/out" "Hello world"
else
  bad "missing $qwen: run scripts/fetch-fixtures.sh"
fi
expect_status 1 "$EC" tokenize --tokenizer "$WORK/nope.json" --text x
expect_in "$WORK/err" "nope.json"
expect_status 2 "$EC" tokenize --tokenizer bytes
expect_status 2 "$EC" tokenize --tokenizer bytes --decode --text "1,x,3"
expect_in "$WORK/err" "'x'"

expect_status 0 "$EC" generate --model tiny-qwen2 --prompt-ids 1,2,3 --max-new-tokens 5 --json
expect_in "$WORK/out" '"prompt_ids":[1,2,3]'
generated="$(sed -e 's/.*"generated_ids":\[\([0-9,]*\)\].*/\1/' "$WORK/out")"
[ "$(echo "$generated" | tr ',' '\n' | wc -l)" -eq 5 ] && ok || bad "expected 5 generated ids, got '$generated'"
# Greedy decoding is deterministic: the same call gives the same ids.
"$EC" generate --model tiny-qwen2 --prompt-ids 1,2,3 --max-new-tokens 5 --json >"$WORK/out2"
cmp -s "$WORK/out" "$WORK/out2" && ok || bad "greedy decoding differed between two calls"

expect_status 0 "$EC" generate --model tiny-qwen2 --prompt-ids 1,2,3 --max-new-tokens 2 --dump-logits "$WORK/logits.json"
expect_in "$WORK/logits.json" '"prompt_ids":[1,2,3]'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['logits'])==3 and len(d['logits'][0])==d['vocab_size']" "$WORK/logits.json" && ok || bad "logits dump has the wrong shape"
expect_status 2 "$EC" generate --model tiny-qwen2 --max-new-tokens 2
expect_status 2 "$EC" generate --model tiny-qwen2 --prompt-ids 1,999999 --max-new-tokens 2
expect_in "$WORK/err" "999999"
finish
