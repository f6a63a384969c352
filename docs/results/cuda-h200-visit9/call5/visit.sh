set -u
P=build/h-cuda/bench/bench_nf4_probe
cuobjdump -sass $P > /tmp/all.sass 2>&1; echo "sass lines $(wc -l < /tmp/all.sass)"
awk -v out=$OUT/sass-full-r2-u2-none.txt '/Function :/{keep = ($0 ~ /Part3E/ && $0 ~ /Li2ELNS.*GemvPipelineE0ELi2E/)} keep{print > out}' /tmp/all.sass
wc -l $OUT/sass-full-r2-u2-none.txt
grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9_.]+" $OUT/sass-full-r2-u2-none.txt | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -30
for spec in "gate_up r2p-u2 full" "gate_up r2p-u2 load" "down r2p-dbuf-u2 full"; do
  set -- $spec
  echo "== ncu $spec"
  timeout 200 ncu --set full -k regex:gemv_kernel -s 1 -c 1 $P --role $1 --config $2 --part $3 --reps 2 > $OUT/ncu-$1-$2-$3.txt 2>&1; echo "ncu rc=$?"
  grep -E "ERR|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Issue Slots Busy|Issued Ipc|No Eligible|Active Warps Per|Eligible Warps|Achieved Occupancy|Registers Per|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|L2 Hit|Executed Instructions  |SM Frequency|One or More" $OUT/ncu-$1-$2-$3.txt | head -30
done
