# Visit 19 call 2: does the energy counter integrate power or sample part of each period?
set -u
mkdir -p $OUT/r
cp build/s16/call2.sh $OUT/r/
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,power.draw,temperature.gpu,clocks.sm --format=csv > $OUT/r/smi.txt 2>&1
timeout 150 python3 bench/meter/counter_phase.py --burst-ms 40 --repeats 3 2>&1 | tee $OUT/r/phase-40.txt | tail -14
timeout 120 python3 bench/meter/counter_phase.py --burst-ms 15 --repeats 2 2>&1 | tee $OUT/r/phase-15.txt | tail -14
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
