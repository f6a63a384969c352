set -u
mkdir -p $OUT/r
A=build/ab14
T0=$(date +%s)
timeout 120 $A/test_engine_cuda --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc=$? t=$(( $(date +%s)-T0 ))"; grep -E "FAILED|PASSED|Failure|tests from" $OUT/r/tests.log | head -8
summ() { awk -F'"' '{fmt=$4; role=$8; v=$12; match($0,/"seconds":[0-9.e-]+/); t=substr($0,RSTART+10,RLENGTH-10)+0; key=fmt" "role; if (v ~ /bulk/) {if(!(key in b)||t<b[key]){b[key]=t;bn[key]=v}} else {if(!(key in n)||t<n[key]){n[key]=t;nn[key]=v}}} END{for(k in n) printf "%s best %s %.2f us | bulk %s %.2f us\n", k, nn[k], n[k]*1e6, bn[k], b[k]*1e6}' $1 | sort; }
for p in qwen2-7b qwen2-0.5b; do timeout 120 $A/bench_kernels_bulk --preset $p --formats f16,int8-wo --json $OUT/r/k-$p.jsonl > $OUT/r/k-$p.md 2>&1; echo "kernels $p rc=$? t=$(( $(date +%s)-T0 ))"; summ $OUT/r/k-$p.jsonl; grep FAIL $OUT/r/k-$p.md | head -3; done
cp build/s14/call2.sh $OUT/r/
show() { grep -E "^\| (qwen|tiny)" $1 | sed -E 's/cuda-f32acc-//; s/\| [0-9.]+ \| cuda/| cuda/' | cut -c1-230; }
run() { EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
run s1-bulk bulk 1 qwen2-0.5b fp16,int8-wo 50
run l2-bulk bulk 1 qwen2-7b fp16,int8-wo 100
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
