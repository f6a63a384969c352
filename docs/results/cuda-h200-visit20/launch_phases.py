# Per-launch phases of a gemv-trace.patch CSV (visit 20): launches grouped by weight pointer, medians over blocks.
# Usage: python3 launch_phases.py FILE.csv
import csv, sys, statistics as st
from collections import defaultdict
def load(path):
    rows=[]
    with open(path) as f:
        r=csv.DictReader(f)
        for d in r:
            rows.append({k:int(v) for k,v in d.items()})
    return rows
def launches(rows):
    byw=defaultdict(list)
    for d in rows: byw[d['w']].append(d)
    L=[]
    for w,rs in byw.items():
        rs.sort(key=lambda d:d['t0'])
        cur=[rs[0]]
        for d in rs[1:]:
            if d['t0']-cur[-1]['t0']>30000: L.append(cur); cur=[d]
            else: cur.append(d)
        L.append(cur)
    L.sort(key=lambda g:min(d['t0'] for d in g))
    return L
def med(x): return st.median(x) if x else float('nan')
path=sys.argv[1]
rows=load(path); L=launches(rows)
t_first=min(d['t0'] for d in rows)
# classify by (cols,total)
prev_end=None
per_shape=defaultdict(lambda: defaultdict(list))
for g in L:
    start=min(d['t0'] for d in g); end=max(d['t5'] for d in g)
    rel=lambda k: [d[k] for d in g]
    wait_rel=min(d['t2'] for d in g)
    key=(g[0]['cols'],g[0]['total'])
    s=per_shape[key]
    s['dur'].append((end-start)/1e3)
    s['blocks'].append(len(g)); s['grid'].append(g[0]['grid'])
    s['pre'].append(med([d['t1']-d['t0'] for d in g])/1e3)
    s['wait'].append(med([d['t2']-d['t1'] for d in g])/1e3)
    s['stage'].append(med([d['t3']-d['t2'] for d in g])/1e3)
    s['first'].append(med([d['t4']-d['t3'] for d in g])/1e3)
    s['rest'].append(med([d['t5']-d['t4'] for d in g])/1e3)
    s['release_to_end'].append((end-wait_rel)/1e3)  # from first wait release to last block end
    s['start_to_release'].append((wait_rel-start)/1e3)
    s['endspread'].append((end-sorted(d['t5'] for d in g)[len(g)//2])/1e3)
    if prev_end is not None:
        s['gap_prev_end_to_release'].append((wait_rel-prev_end)/1e3)
        s['start_before_prev_end'].append((prev_end-start)/1e3)
    prev_end=end
print(path.split('/')[-1], 'launches', len(L))
print('%-14s %5s %6s | %6s %6s %6s %6s %6s | %7s %7s %7s %7s %7s'%('cols x rows','grid','blocks','pre','wait','stage','first','rest','dur','st->rel','rel->end','prevend->rel','endtail'))
for key,s in sorted(per_shape.items(), key=lambda kv:-kv[0][0]*kv[0][1]):
    print('%-14s %5d %6d | %6.2f %6.2f %6.2f %6.2f %6.2f | %7.2f %7.2f %7.2f %7.2f %7.2f  n=%d'%(
        '%dx%d'%key, med(s['grid']), med(s['blocks']), med(s['pre']), med(s['wait']), med(s['stage']), med(s['first']), med(s['rest']),
        med(s['dur']), med(s['start_to_release']), med(s['release_to_end']), med(s['gap_prev_end_to_release']), med(s['endspread']), len(s['dur'])))
# step time
starts=[min(d['t0'] for d in g) for g in L]
