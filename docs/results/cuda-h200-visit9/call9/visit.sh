set -u
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
for p in qwen2-7b qwen2-0.5b; do
build/h-cuda/bench/bench_kernels --preset $p --formats f16,int8-wo,nf4,nf4-dq --json /tmp/k.jsonl > $OUT/k-$p.md 2>&1; grep -E "^\| (f16|nf4|nf4-dq|int8-wo) \|" $OUT/k-$p.md | cut -c1-150
done
timeout 150 ncu --set full -k regex:"attention_kernel|rope_store_kernel" -s 600 -c 2 build/h-cuda/bench/bench_decode --models qwen2-7b --formats fp16 --tokens 32 > $OUT/ncu-attn.txt 2>&1; echo "ncu rc=$?"
grep -E "attention_kernel|rope_store_kernel|Duration|Elapsed Cycles|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Warp Cycles Per Issued|Achieved Occupancy|Grid Size|Block Size" $OUT/ncu-attn.txt | cut -c1-140 | head -40
build/h-cuda/bench/bench_decode --models qwen2-0.5b,qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-250
