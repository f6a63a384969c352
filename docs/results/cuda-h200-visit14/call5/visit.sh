set -u
mkdir -p $OUT/r
A=build/ab
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/r/smi.csv
timeout 100 $A/bench_nf4_probe --reps 20 --config r2p-dbuf-u2 > $OUT/r/probe.md 2>&1; echo "probe rc=$?"; grep "^| " $OUT/r/probe.md
show() { grep -E "^\| (qwen|tiny)" $1 | awk -F'|' '{v=$11; n=length(v); printf "%s|%s|%s|%s|%s\n",$2,$3,$5,$7,substr(v,n-60)}'; }
for rep in 1 2 3; do timeout 50 $A/bench_decode --models qwen2-7b --formats fp16,nf4 --tokens 256 --json $OUT/r/d7-$rep.jsonl > $OUT/r/d7-$rep.md 2>&1; echo "7b $rep rc=$?"; show $OUT/r/d7-$rep.md; done
cp build/s11/call5.sh $OUT/r/
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
