# Visit 22 call 1: where the NF4 GEMV's cycles go today (ncu full set on 7B gate_up and down, with
# per-instruction SASS samples), and the probe's parts table for the tuned config.
set -u
mkdir -p $OUT/r
P=build/ab19/bench_nf4_probe
T0=$(date +%s)
cp build/s19/call1.sh $OUT/r/
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.txt
timeout 90 $P --config r2p-dbuf-u2 --reps 20 > $OUT/r/parts.md 2>&1; echo "parts rc=$? t=$(( $(date +%s)-T0 ))"; cat $OUT/r/parts.md
for role in gate_up down; do
  timeout 170 ncu --set full --clock-control none -k regex:gemv_kernel -s 1 -c 1 -o $OUT/r/ncu-$role $P --role $role --config r2p-dbuf-u2 --part full --reps 2 > $OUT/r/ncu-$role.log 2>&1; echo "ncu $role rc=$? t=$(( $(date +%s)-T0 ))"
  ncu -i $OUT/r/ncu-$role.ncu-rep --page details > $OUT/r/ncu-$role-details.txt 2>&1
  ncu -i $OUT/r/ncu-$role.ncu-rep --page source --csv --print-source sass > $OUT/r/ncu-$role-sass.csv 2>&1
  ncu -i $OUT/r/ncu-$role.ncu-rep --page raw --csv > $OUT/r/ncu-$role-raw.csv 2>&1
  rm -f $OUT/r/ncu-$role.ncu-rep
  grep -E "Duration|DRAM Throughput|Issue Slots|Executed Ipc A|Registers Per|Achieved Occ|Warp Cycles Per Issued|Shared Memory Throughput|L1/TEX Cache Throughput" $OUT/r/ncu-$role-details.txt | head -12
done
ls -la $OUT/r
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
