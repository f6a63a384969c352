# Per-block phase durations (ns and SM cycles, thread 0) of a gemv-trace.patch CSV with stamp 6 (visit 20 call 3).
# Usage: python3 block_phases.py FILE.csv
import csv, sys, statistics as st
from collections import defaultdict
rows=[{k:int(v) for k,v in d.items()} for d in csv.DictReader(open(sys.argv[1]))]
by=defaultdict(list)
for d in rows: by[(d['cols'],d['total'])].append(d)
names=[('pre',0,1),('wait',1,2),('stage',2,3),('w-in-hand',3,6),('dot',6,4),('rest',4,5)]
print(sys.argv[1].split('/')[-1], ' median ns / cycles per block (thread 0)')
print('%-12s'%'cols x rows', ' '.join('%15s'%n for n,_,_ in names))
for key,rs in sorted(by.items(), key=lambda kv:-kv[0][0]*kv[0][1]):
    out=[]
    for n,a,b in names:
        ns=st.median([d['t%d'%b]-d['t%d'%a] for d in rs]); cy=st.median([d['c%d'%b]-d['c%d'%a] for d in rs])
        out.append('%7.0f/%7.0f'%(ns,cy))
    print('%-12s'%('%dx%d'%key), ' '.join(out))
