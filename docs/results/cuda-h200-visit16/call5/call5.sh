set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-100)}'; }
run() { # tag binary tune models formats limit
  EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
i=0
for b in new h4 new h4 new h4; do i=$((i+1)); run s$i-$b $b 1 qwen2-0.5b int8-wo,nf4 30; done
cp build/s13/call5.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
