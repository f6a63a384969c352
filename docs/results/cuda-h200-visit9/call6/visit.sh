set -u
P=build/h-cuda/bench/bench_nf4_probe
cuobjdump -sass $P > /tmp/all.sass 2>&1
grep "Function :" /tmp/all.sass | sed 's/.*Function : //' > /tmp/names.txt; wc -l < /tmp/names.txt; grep -m3 "Probe" /tmp/names.txt | cut -c1-250
# the production dot (Part 3 = full) and the load-only probe (Part 0), 2 rows, unpipelined, 2-chunk steps
for part in 3 0; do
  awk -v out=$OUT/sass-part$part.txt -v pat="PartE${part}E.*Li2ELNS[0-9A-Za-z_]*GemvPipelineE0ELi2E" '/Function :/{keep = ($0 ~ pat)} keep{print > out}' /tmp/all.sass
  echo "part $part: $(wc -l < $OUT/sass-part$part.txt) lines"
  grep -oE "^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9_.]+" $OUT/sass-part$part.txt | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -25 | tr '\n' ';'
  echo
done
