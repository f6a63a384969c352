set -u
build/h-cuda/tests/test_engine_cuda --gtest_brief=1 > $OUT/tests.log 2>&1; echo "tests rc=$?"; grep -E "FAILED|PASSED|tests from" $OUT/tests.log | head -8
P=build/h-cuda/bench/bench_nf4_probe
cuobjdump -sass $P > /tmp/all.sass 2>&1
awk -v out=/tmp/sass3.txt -v pat="PartE3E.*Li2ELNS[0-9A-Za-z_]*GemvPipelineE0ELi2E" '/Function :/{keep = ($0 ~ pat)} keep{print > out}' /tmp/all.sass
echo "full r2 u2: $(grep -oE "^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9_.]+" /tmp/sass3.txt | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -16 | tr '\n' ';')"
$P --reps 30 > $OUT/probe.md 2>&1; grep -E "full|load" $OUT/probe.md
build/h-cuda/bench/bench_kernels --preset qwen2-7b --formats int8-wo,nf4,nf4-dq --json $OUT/k7.jsonl > $OUT/k7.md 2>&1; grep -E "^\| (nf4|nf4-dq|int8-wo) \|" $OUT/k7.md | cut -c1-150
build/h-cuda/bench/bench_decode --models qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/d.md 2>&1; grep -E "^\| qwen|ceiling" $OUT/d.md | cut -c1-250
