set -u
export OUT
mkdir -p /tmp/ec_visit && tar -xzf build/sweep-resume.tgz -C /tmp/ec_visit
STAGES=sweep REPEATS=2 T_SWEEP=250 SWEEP_RUN_ARGS=--no-quality bash bench/device/run_visit.sh build/h-cuda > /tmp/visit-sweep.log 2>&1
tail -12 $OUT/sweep.log
