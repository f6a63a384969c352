# One line per report: tok/s, J/1k tok, per-iteration J/s spread, counter against the instant-power
# cross-check, the edges the meter used, and the tuned variants' digest.
import hashlib, json, statistics, sys
j = json.load(open(sys.argv[1]))
r = j['results']
its = j['iterations']
w = [x['energy_j'] / x['seconds'] for x in its]  # W: iterations differ a little in length
cv = statistics.stdev(w) / statistics.mean(w) * 100 if len(w) > 1 else float('nan')
dec = [p for p in j.get('phases', []) if p.get('name') == 'decode']
xc = ''
if dec and dec[0].get('cross_check_energy_j') and dec[0].get('energy_j'):
    xc = '%+.2f%%' % ((dec[0]['cross_check_energy_j'] / dec[0]['energy_j'] - 1) * 100)
edges = j.get('meter', {}).get('counter_edges', '?')
kv = j['engine'].get('kernel_variant', '')
print('  tok/s %.1f J/1k %.1f W/iter %s CV %.2f%% xcheck %s edges %s variants %s %s' % (
    r['throughput_tokens_per_s'], r['energy_per_token_mj'], [round(x, 1) for x in w], cv, xc,
    edges[:12], hashlib.sha1(kv.encode()).hexdigest()[:6], j['engine'].get('kernel_variant_choice')))
