set -u
mkdir -p $OUT/r
A=build/ab13
T0=$(date +%s)
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-100)}'; }
run() { # tag binary tune models formats limit
  EC_CUDA_TUNE=$3 timeout $6 $A/bench_decode_$2 --models $4 --formats $5 --tokens 256 --json $OUT/r/d-$1.jsonl > $OUT/r/d-$1.md 2>&1; echo "decode $1 rc=$? t=$(( $(date +%s)-T0 ))"; show $OUT/r/d-$1.md; }
M=tinyllama-1.1b,qwen2-1.5b,qwen2.5-3b; F=fp16,int8-wo,nf4
i=0
for b in base new base new; do i=$((i+1)); run u$i-$b $b 0 $M $F 40; done
cp build/s13/call6.sh $OUT/r/
for b in base new; do i=$((i+1)); run t$i-$b $b 1 $M $F 75; done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
