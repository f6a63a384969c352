#!/usr/bin/env bash
# The CUDA engine on a GPU machine: validate every CUDA kernel against its CPU twin
# (test_engine_cuda), benchmark the GEMV variants against the copy ceiling and cuBLAS (bench_kernels)
# and every other kernel against the copy ceiling (bench_ops), decode end to end over the
# seed presets × formats (bench_decode), run Hugging Face eager FP16 on the same architectures
# (hf_peer.py), and print the short tables last. Outputs go under $OUT (8 files at most).
#   bench/device/engine_suite.sh [BUILD_DIR]     STAGES="tests kernels decode hf" MODELS=... FORMATS=...
set -u
B=${1:-build/static}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
STAGES=${STAGES:-"tests kernels decode hf"}
MODELS=${MODELS:-qwen2-0.5b,tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b,qwen2-7b}
FORMATS=${FORMATS:-fp16,int8-wo,nf4,nf4-dq,int8}
TOKENS=${TOKENS:-256}
KPRESET=${KPRESET:-qwen2-7b}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
CONFIGS=/tmp/ec_hf_configs

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv
  echo "--- ldd bench_decode"
  ldd "$B/bench/bench_decode"
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

for stage in $STAGES; do
  start=$(date +%s)
  case $stage in
    tests)
      T="$B/tests/test_engine_cuda"
      [ -x "$T" ] || T="$B/bench/test_engine_cuda"
      timeout "${T_TESTS:-240}" "$T" --gtest_brief=1 >"$OUT/tests.log" 2>&1
      echo "test_engine_cuda exit $?" >>"$OUT/tests.log"
      grep -E "FAILED|PASSED|SKIPPED|exit|Failure|rel_error|Expected" "$OUT/tests.log" | head -40
      ;;
    kernels)
      timeout "${T_KERNELS:-300}" "$B/bench/bench_kernels" --preset "$KPRESET" --json "$OUT/kernels.jsonl" \
        >"$OUT/kernels.md" 2>&1
      echo "bench_kernels exit $?" >>"$OUT/kernels.md"
      timeout "${T_OPS:-120}" "$B/bench/bench_ops" >>"$OUT/kernels.md" 2>&1
      echo "bench_ops exit $?" >>"$OUT/kernels.md"
      ;;
    decode)
      timeout "${T_DECODE:-420}" "$B/bench/bench_decode" --models "$MODELS" --formats "$FORMATS" \
        --tokens "$TOKENS" --json "$OUT/decode.jsonl" --configs-dir "$CONFIGS" \
        >"$OUT/decode.md" 2>&1
      echo "bench_decode exit $?" >>"$OUT/decode.md"
      ;;
    hf)
      [ -d "$CONFIGS" ] || "$B/bench/bench_decode" --models "$MODELS" --formats none \
        --configs-dir "$CONFIGS" >/dev/null 2>&1
      timeout "${T_HF:-300}" python3 bench/hf_peer.py --configs "$CONFIGS" --models "$MODELS" \
        --tokens "$TOKENS" --json "$OUT/hf.jsonl" >"$OUT/hf.md" 2>&1
      echo "hf_peer exit $?" >>"$OUT/hf.md"
      ;;
  esac
  echo "== $stage took $(( $(date +%s) - start )) s"
done

echo "===================== summary"
for f in kernels decode hf; do
  [ -f "$OUT/$f.md" ] && { echo "--- $f"; grep -E "^\||exit|ceiling|device|FAIL|error" "$OUT/$f.md"; }
done
exit 0
