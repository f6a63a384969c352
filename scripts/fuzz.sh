#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/) for SECONDS each, one after another; exits 1 when any finds a
# crash, hang or leak, with the input kept in $BUILD/crashes/<target>/ (named in the output).
#   scripts/fuzz.sh 30                  # CI: every target, 30 s each
#   scripts/fuzz.sh 600 quant config    # the long run, or a few targets
# Environment: EC_FUZZ_BUILD (build dir, default build/fuzz), EC_FUZZ_SOURCE (CMake source dir,
# default the repository), EC_FUZZ_JOBS (build parallelism), EC_FUZZ_ARGS (extra libFuzzer flags),
# EC_FUZZ_SEED (libFuzzer's -seed; unset, each run draws its own and explores new ground).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
die() { echo "fuzz: error: $*" >&2; exit 2; }

[[ $# -ge 1 && "$1" =~ ^[0-9]+$ ]] || die "usage: scripts/fuzz.sh SECONDS [target...]"
seconds="$1"
shift
all_targets=(safetensors config tokenizer_load tokenizer_encode quant report_ingest published_csv
             json_inputs cli_lists serve_request)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

build="${EC_FUZZ_BUILD:-$root/build/fuzz}"
source_dir="${EC_FUZZ_SOURCE:-$root}"
jobs="${EC_FUZZ_JOBS:-$(nproc)}"

command -v clang++ >/dev/null || die "clang++ is needed (Debian: apt-get install clang libclang-rt-14-dev)"
scripts/fetch-fixtures.sh >/dev/null  # tokenizer_encode fuzzes the real Qwen3 and Llama 2 tokenizers
if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEC_CUDA=OFF -DEC_BUILD_TESTS=OFF -DEC_BUILD_BENCH=OFF -DEC_FUZZ=ON >/dev/null
fi
cmake --build "$build" --target fuzzers -j "$jobs" >/dev/null ||
  { cmake --build "$build" --target fuzzers -j 1 2>&1 | tail -40; die "the fuzzers do not build"; }

# Per target: the dictionary (JSON syntax joins the JSON formats') and the largest input tried.
dict_for() {
  case "$1" in
    safetensors | config | tokenizer_load | report_ingest) cat fuzz/dict/json.dict "fuzz/dict/$1.dict" ;;
    json_inputs) cat fuzz/dict/json.dict fuzz/dict/json_inputs.dict ;;
    *) cat "fuzz/dict/$1.dict" ;;
  esac
}
max_len_for() {
  case "$1" in
    # 64 KiB holds ~1,800 nested Sequence components, far past the 64-level limit.
    tokenizer_load) echo 65536 ;;
    report_ingest) echo 16384 ;;
    published_csv) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

failed=()
printf '%-18s %12s %8s %8s  %s\n' target execs cov ft result
for target in "${targets[@]}"; do
  binary="$build/bin/fuzz/${target}_fuzzer"
  [[ -x "$binary" ]] || die "no fuzzer named '$target' (have: ${all_targets[*]})"
  corpus="$build/corpus/$target"     # grows between runs; the committed seeds stay untouched
  crashes="$build/crashes/$target"
  log="$build/logs/$target.log"
  mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
  dict_for "$target" >"$build/logs/$target.dict"
  rc=0
  # shellcheck disable=SC2086 # EC_FUZZ_ARGS is a list of flags
  "$binary" "$corpus" "fuzz/corpus/$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len="$(max_len_for "$target")" \
    -dict="$build/logs/$target.dict" -artifact_prefix="$crashes/" -print_final_stats=1 \
    ${EC_FUZZ_SEED:+-seed="$EC_FUZZ_SEED"} ${EC_FUZZ_ARGS:-} >"$log" 2>&1 || rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
  status="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  cov="$(grep -o 'cov: [0-9]*' <<<"$status" | grep -o '[0-9]*' || true)"
  ft="$(grep -o 'ft: [0-9]*' <<<"$status" | grep -o '[0-9]*' || true)"
  if [[ $rc -eq 0 ]]; then
    printf '%-18s %12s %8s %8s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" ok
  else
    artifact="$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //' || true)"
    printf '%-18s %12s %8s %8s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
      "FAILED (exit $rc): ${artifact:-see $log}"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|PropertyViolation|what\(\)' "$log" | head -5 | sed 's/^/    /'
    failed+=("$target")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; logs in $build/logs/." >&2
  echo "fuzz: minimise with <fuzzer> -minimize_crash=1 -runs=100000 <input>, then commit it under" >&2
  echo "      tests/fixtures/regressions/<target>/ (test_regressions replays it)." >&2
  exit 1
fi
