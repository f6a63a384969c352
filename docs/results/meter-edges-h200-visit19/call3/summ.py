# One line per report (and its baseline): tok/s, J/1k tok, per-iteration W and their spread,
# counter against the instant-power cross-check, the energy taken off at aligned edges, the
# decode phase's temperature and SM clock, and the tuned variants' digest.
import hashlib, json, statistics, sys
top = json.load(open(sys.argv[1]))
for side in (['baseline'] if 'baseline' in top else []) + [None]:
    j = top[side] if side else top
    r = j['results']
    w = [x['energy_j'] / x['seconds'] for x in j['iterations']]
    cv = statistics.stdev(w) / statistics.mean(w) * 100 if len(w) > 1 else float('nan')
    dec = [p for p in j.get('phases', []) if p.get('name') == 'decode'][0]
    t = dec.get('telemetry', {})
    xc = t.get('counter_vs_cross_check_pct')
    off = t.get('counter_edges', {}).get('offset_j')
    temp = t.get('temperature_c', {}).get('mean')
    sm = t.get('sm_clock_mhz', {}).get('mean')
    kv = j['engine'].get('kernel_variant', '')
    print('  %s tok/s %.1f J/1k %.1f W/iter %s CV %.2f%% xcheck %s offJ %s temp %s sm %s var %s' % (
        j['engine']['precision'], r['throughput_tokens_per_s'], r['energy_per_token_mj'],
        [round(x, 1) for x in w], cv, None if xc is None else round(xc, 2),
        None if off is None else round(off, 1), None if temp is None else round(temp, 1),
        None if sm is None else round(sm), hashlib.sha1(kv.encode()).hexdigest()[:6]))
