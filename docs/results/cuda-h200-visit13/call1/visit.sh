set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/smi.csv
T=build/h-cuda/tests/test_engine_cuda
timeout 120 $T --gtest_brief=1 --gtest_filter='CudaGemvChain*:CudaEngine.Chained*:CudaEngine.RejectsAChain*' > $OUT/tests-chain.log 2>&1; echo "chain tests rc=$?"; grep -E "FAILED|PASSED|Failure|Expected|Which is|rel_error" $OUT/tests-chain.log | head -16
timeout 150 $T --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.log | head -8
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s|%s\n",$2,$3,$5,$7,$9,substr(v,n-90)}'; }
B=build/h-cuda/bench/bench_decode
for mode in 0 narrow wide lean; do
  EC_CUDA_CHAIN=$mode timeout 60 $B --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 --json $OUT/d05-$mode.jsonl > $OUT/d05-$mode.md 2>&1; echo "0.5b chain=$mode rc=$?"; show $OUT/d05-$mode.md
done
timeout 60 $B --models qwen2-0.5b --formats fp16,int8-wo --tokens 256 --json $OUT/d05-auto.jsonl > $OUT/d05-auto.md 2>&1; echo "0.5b chain=auto rc=$?"; show $OUT/d05-auto.md
for mode in 0 narrow wide; do
  EC_CUDA_CHAIN=$mode timeout 100 $B --models qwen2-7b --formats fp16,int8-wo --tokens 256 --json $OUT/d7-$mode.jsonl > $OUT/d7-$mode.md 2>&1; echo "7b chain=$mode rc=$?"; show $OUT/d7-$mode.md
done
