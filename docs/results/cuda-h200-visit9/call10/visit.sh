set -u
export EC_CUDA_TUNE=0
D="build/h-cuda/bench/bench_decode --models qwen2-7b --formats fp16 --tokens 64"
timeout 200 ncu --set full -k regex:attention_kernel -s 300 -c 1 $D > $OUT/ncu-attn-full.txt 2>&1; echo "ncu rc=$?"
grep -E "attention_kernel|Duration|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Warp Cycles Per Issued|Grid Size|Registers Per|Executed Instructions  " $OUT/ncu-attn-full.txt | cut -c1-140 | head -20
timeout 200 ncu --metrics regex:smsp__warp_issue_stalled_.*_per_warp_active.pct,gpu__time_duration.sum -k regex:attention_kernel -s 300 -c 1 $D > $OUT/ncu-attn-stalls.txt 2>&1; echo "ncu rc=$?"
grep -E "stalled|duration" $OUT/ncu-attn-stalls.txt | awk '{print $1, $NF}' | sort -k2 -n -r | head -14
