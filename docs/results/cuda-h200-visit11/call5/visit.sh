set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
timeout 120 build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from|Failure" $OUT/tests.log | head -12
timeout 60 build/h-cuda/bench/bench_attention > $OUT/attn.md 2>&1; echo "attn rc=$?"; grep -E "^\| qwen" $OUT/attn.md | cut -c1-120
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-60)}'; }
EC_CUDA_PROFILE=1 timeout 120 build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d.jsonl > $OUT/d.md 2>&1; echo "decode rc=$?"; show $OUT/d.md; grep profile $OUT/d.md | cut -c1-300
export EC_CUDA_TUNE=0
for f in fp16 int8-wo; do
D="build/h-cuda/bench/bench_decode --models qwen2-7b --formats $f --tokens 8 --iters 1"
timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:gemv_kernel -s 0 -c 4 $D > $OUT/ncu-7b-$f.txt 2>&1; echo "ncu $f rc=$?"
grep -E "gemv_kernel|^ +Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots|Registers Per|Block Limit Shared|Grid Size|Waves Per SM" $OUT/ncu-7b-$f.txt | sed -e 's/ \+/ /g' | cut -c1-110
timeout 150 ncu --clock-control none --metrics regex:smsp__warp_issue_stalled_.*_per_warp_active.pct,gpu__time_duration.sum -k regex:gemv_kernel -s 0 -c 4 $D > $OUT/ncu-7b-$f-stalls.txt 2>&1; echo "ncu stalls $f rc=$?"
done
