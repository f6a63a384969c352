# `ecocompute run` on the embedded default model: writes a schema-valid report with its FP16 baseline.
source "$(dirname "$0")/lib.bash"

# Under the sanitizers (EC_TEST_SANITIZED, set by tests/CMakeLists.txt) the whole corpus takes ~300 s
# on CI's two cores, the whole of the ASan test phase: score its first 8,000 bytes there instead.
# The plain build scores the whole corpus, which the digest check below pins.
quality=()
corpus="$SRC/data/eval_text.txt"
if [ "${EC_TEST_SANITIZED:-0}" = 1 ]; then
  head -c 8000 "$corpus" > "$WORK/excerpt.txt"
  corpus="$WORK/excerpt.txt"
  quality=(--quality-text "$corpus")
fi
expect_status 0 "$EC" run --iterations 2 --warmup 1 --new-tokens 16 "${quality[@]}" --out "$WORK/energy.json"
expect_in "$WORK/out" "| FP16 |"
[ -s "$WORK/energy.json" ] && ok || bad "no report written"
expect_status 0 "$EC" validate "$WORK/energy.json"
expect_in "$WORK/energy.json" '"baseline"'
expect_in "$WORK/energy.json" '"basis": "unavailable"'
# Nothing on a CPU run may claim to be measured energy.
if grep -q '"measurement_source": *"direct-nvml"' "$WORK/energy.json"; then bad "CPU run claims NVML"; else ok; fi

# The report's quality block scored the corpus it was given: the whole default one in the plain
# build (its digest pinned here, so a changed data/eval_text.txt is noticed), the excerpt otherwise.
if [ "${EC_TEST_SANITIZED:-0}" = 1 ]; then
  expect_in "$WORK/energy.json" "\"sha256\": \"$(sha256sum "$corpus" | cut -d' ' -f1)\""
else
  expect_in "$WORK/energy.json" '"sha256": "22ac091a6383740d30f8e41ae144032c873c772db5e1c901112c1c330fdc5504"'
fi

# Usage errors exit 2, failures exit 1, and neither leaves a report behind.
expect_status 2 "$EC" run --precision FP12 --out "$WORK/bad.json"
expect_in "$WORK/err" "FP12"
expect_status 2 "$EC" run --model no-such-preset --out "$WORK/bad.json"
expect_in "$WORK/err" "no-such-preset"
expect_status 1 "$EC" run --quality-text "$WORK/missing.txt" --out "$WORK/bad.json"
expect_in "$WORK/err" "missing.txt"
[ ! -e "$WORK/bad.json" ] && ok || bad "a failed run left a report"
expect_status 2 "$EC" run --iterations 0
finish
