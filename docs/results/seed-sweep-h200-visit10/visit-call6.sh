set -u
export OUT
STAGES=sweep REPEATS=2 T_SWEEP=390 SWEEP_RUN_ARGS=--no-quality bash bench/device/run_visit.sh build/h-cuda > $OUT/visit-sweep.log 2>&1
tail -22 $OUT/sweep.log
STAGES=hf MODELS=qwen2-0.5b,qwen2-7b T_HF=110 bash bench/device/run_visit.sh build/h-cuda > $OUT/visit-hf.log 2>&1
cat $OUT/hf.md
