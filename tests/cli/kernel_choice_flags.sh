# `tune` and the CUDA kernel-choice flags on any machine: tune refuses the CPU backend clearly, a
# tuning table is checked (file and field named) before any model loads, and the flags and their
# environment variables refuse values they do not take.
source "$(dirname "$0")/lib.bash"

gen=(generate --model tiny-qwen2 --backend cpu --prompt-ids 1,2,3 --max-new-tokens 2 --json)

expect_status 1 "$EC" tune --model tiny-qwen2 --backend cpu --precision NF4 --out "$WORK/t.json"
expect_in "$WORK/err" "the CPU backend has one kernel per format, nothing to tune"
[ ! -e "$WORK/t.json" ] && ok || bad "tune wrote a table after failing"
expect_status 2 "$EC" tune --model tiny-qwen2 --precision NF5
expect_in "$WORK/err" "unknown precision 'NF5'"

# A table that does not parse: the file and the field are named, whether given as a flag or in the
# environment.
printf '{"format": "ecocompute-tuning-table", "version": 1, "gpu": {"name": "X", "compute_capability": "9"}, "entries": []}' >"$WORK/bad.json"
expect_status 1 "$EC" "${gen[@]}" --tuning-table "$WORK/bad.json"
expect_in "$WORK/err" "bad.json: gpu: 'compute_capability' is '9'"
expect_status 1 env EC_TUNING_TABLE="$WORK/bad.json" "$EC" "${gen[@]}"
expect_in "$WORK/err" "bad.json: gpu"
expect_status 1 "$EC" "${gen[@]}" --tuning-table "$WORK/missing.json"
expect_in "$WORK/err" "missing.json"
# A good table of some GPU, and 'none', load (the CPU engine does not read them).
printf '{"format": "ecocompute-tuning-table", "version": 1, "gpu": {"name": "X", "compute_capability": "9.0"}, "entries": [{"weight_format": "nf4", "role": "qkv", "rows": 64, "cols": 64, "variant": "r2p"}]}' >"$WORK/good.json"
expect_status 0 "$EC" "${gen[@]}" --tuning-table "$WORK/good.json"
expect_status 0 "$EC" "${gen[@]}" --tuning-table none

expect_status 2 "$EC" "${gen[@]}" --pdl maybe
expect_status 2 env EC_CUDA_PDL=maybe "$EC" "${gen[@]}"
expect_in "$WORK/err" "EC_CUDA_PDL: 'maybe' is not on or off"
expect_status 2 "$EC" "${gen[@]}" --cuda-attention fast
expect_status 2 env EC_CUDA_ATTENTION=fast "$EC" "${gen[@]}"
expect_in "$WORK/err" "EC_CUDA_ATTENTION: 'fast' is not fused or split"
# The flag wins over its variable.
expect_status 0 env EC_CUDA_PDL=maybe "$EC" "${gen[@]}" --pdl off
finish
