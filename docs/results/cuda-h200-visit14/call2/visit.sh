set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-70)}'; }
for d in 0 2 4; do EC_EXP_PFD=$d timeout 120 $A/bench_kernels_pfd --preset qwen2-7b --formats f16,int8-wo,nf4 --json $OUT/r/k7-pfd$d.jsonl > $OUT/r/k7-pfd$d.md 2>&1; echo "k7 pfd=$d rc=$?"; grep -E "^\| (f16|int8-wo|nf4) " $OUT/r/k7-pfd$d.md | cut -c1-110; done
for d in 0 2; do EC_EXP_PFD=$d timeout 100 $A/bench_decode_pfd --models qwen2-7b --formats fp16,int8-wo,nf4 --tokens 256 > $OUT/r/d7-pfd$d.md 2>&1; echo "decode pfd=$d rc=$?"; show $OUT/r/d7-pfd$d.md; done
for v in flat gaps; do timeout 60 $A/bench_decode_$v --models qwen2-7b --formats nf4 --tokens 256 > $OUT/r/d7-$v.md 2>&1; echo "decode $v rc=$?"; show $OUT/r/d7-$v.md; done
cp build/s11/call2.sh build/ab/pfd-full.patch $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
