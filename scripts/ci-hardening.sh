#!/usr/bin/env bash
# What CI runs beyond `make test`. One clang build (CMake preset `hardening`: AddressSanitizer +
# UndefinedBehaviorSanitizer on every target, CUDA off, the libFuzzer targets in the same tree), then
# (1) the whole test suite under ctest with the leak checker on, and (2) every libFuzzer target
# (scripts/fuzz.sh) for FUZZ_SECONDS each. Prints the time of each phase; exits 1 when the build, a
# test or a fuzzer failed.
#   scripts/ci-hardening.sh                  # FUZZ_SECONDS=30
#   FUZZ_SECONDS=60 scripts/ci-hardening.sh
#   EC_HARDENING_SKIP=fuzz scripts/ci-hardening.sh   # or =asan: one phase only
# Environment: EC_HARDENING_BUILD (default build/hardening, the preset's folder), EC_JOBS (build and
# ctest parallelism, default nproc), FUZZ_SECONDS (default 30), EC_FUZZ_SEED (default 20261203),
# scripts/fuzz.sh's EC_FUZZ_ARGS.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fuzz_seconds="${FUZZ_SECONDS:-30}"
jobs="${EC_JOBS:-$(nproc)}"
build="${EC_HARDENING_BUILD:-$root/build/hardening}"
skip="${EC_HARDENING_SKIP:-}"
failed=()
start=$SECONDS
phase_times=()

phase() {  # phase NAME START: records how long the phase NAME took
  phase_times+=("$(printf '%-28s %5d s' "$1" $((SECONDS - $2)))")
}

t=$SECONDS
scripts/fetch-fixtures.sh >/dev/null
# The preset sets clang, -O1 -gline-tables-only (readable sanitizer stacks at a fraction of a Debug
# build's time), EC_SANITIZE=ON (-fsanitize=address,undefined -fno-sanitize-recover=all on every
# project target) and EC_FUZZ=ON (the libraries also get libFuzzer's coverage instrumentation).
# The site's report grader is WebAssembly built by emscripten, not by the sanitizer compiler: reuse
# the one `make test` built from the same tree (cmake/EcReportGrader.cmake) when it is there.
grader="$root/build/default/src/report_grader/report-grader.js"
grader_arg=()
[ -f "$grader" ] && grader_arg=(-DEC_REPORT_GRADER_JS="$grader")
cmake --preset hardening -B "$build" "${grader_arg[@]}" >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null ||
  { cmake --build "$build" -j 1 2>&1 | tail -40; echo "ci-hardening: the sanitizer build failed" >&2; exit 1; }
phase "asan+ubsan+fuzz build" "$t"

if [[ "$skip" != asan ]]; then
  t=$SECONDS
  # detect_leaks: LeakSanitizer runs at exit of every test binary and of every `ecocompute` the
  # CLI tests start. abort_on_error/halt_on_error: the first report fails the test that caused it.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  if ! ctest --test-dir "$build" -j "$jobs" --output-on-failure --no-tests=error --timeout 1800; then
    failed+=("asan+ubsan test suite")
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS
  phase "asan+ubsan ctest" "$t"
fi

if [[ "$skip" != fuzz ]]; then
  t=$SECONDS
  # The fuzzers were built above, in the same tree; scripts/fuzz.sh runs each target in turn.
  # A fixed seed makes CI's verdict a property of the commit: the same inputs in the same order on
  # every run, so a red CI reproduces. New ground is `make fuzz`'s job (random seed, long runs).
  if ! EC_FUZZ_SEED="${EC_FUZZ_SEED:-20261203}" EC_FUZZ_BUILD="$build" EC_FUZZ_JOBS="$jobs" \
    scripts/fuzz.sh "$fuzz_seconds"; then
    failed+=("fuzzers")
  fi
  phase "fuzzers (${fuzz_seconds} s each)" "$t"
fi

echo
echo "ci-hardening: time per phase"
for line in "${phase_times[@]}"; do echo "  $line"; done
echo "  total                        $((SECONDS - start)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "ci-hardening: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "ci-hardening: ok"
