# The original EcoCompute container's command line on the built binary: `--model … --precision …
# --output_dir …` with no command, the MLCube task with its parameters file, and a refusal.
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the report"; exit 0; }
FAST=(--tokens 4 --iterations 1 --warmup 0 --backend cpu --threads 1 --no-quality)

# 1. The docker-run line, tiny model on the CPU: the report lands in the output directory, which
#    the run creates as the original does.
expect_status 0 "$EC" --model tiny-llama --precision INT8 --output_dir "$WORK/o1" "${FAST[@]}"
if [ -f "$WORK/o1/energy.json" ]; then ok; else bad "no $WORK/o1/energy.json"; fi
expect_status 0 "$EC" validate "$WORK/o1/energy.json"
python3 - "$WORK/o1/energy.json" <<'PY' && ok || bad "the report does not carry the original's options"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"]["precision"] == "INT8", r["engine"]
assert r["measurement"]["tokens_per_run"] == 4, r["measurement"]
assert r["measurement"]["iterations"] == 1, r["measurement"]
PY

# 2. The MLCube task: energy_estimate with a parameters file (quality off there), and a note on
#    stderr for the option ecocompute does not follow.
cat >"$WORK/params.yaml" <<'YAML'
model_name: "tiny-qwen2"
precision: NF4          # FP16 | NF4 | INT8
batch_size: 1
tokens: 4
iterations: 1
warmup: 0
quality_probe: false
gpu_arch: hopper
YAML
expect_status 0 "$EC" energy_estimate --parameters_file "$WORK/params.yaml" --output_dir "$WORK/o2" \
  --backend cpu --threads 1
expect_in "$WORK/err" "note: --gpu_arch ignored"
expect_status 0 "$EC" validate "$WORK/o2/energy.json"

# 3. What it cannot honour is refused before anything runs, naming the option or the file.
expect_status 2 "$EC" --model tiny-llama --batch_size 8 --output_dir "$WORK/o3"
expect_in "$WORK/err" "batch_size 8: ecocompute measures batch 1 only"
expect_status 1 "$EC" energy_estimate --parameters_file "$WORK/missing.yaml"
expect_in "$WORK/err" "missing.yaml"

# 4. ecocompute's own command lines are untouched.
expect_status 0 "$EC" --version
expect_status 2 "$EC" run --precision NF4 --outdir x
finish
