#!/usr/bin/env python3
"""storedmedian.py DB RUN NUM_CONFIG_OR_LEVEL DEN [UNIT]: from the stored rounds of a run,
per benchmark the per-round log-ratios num/den, their median and the exact
sign-test 95% interval (order statistics), independent of perflab's code.
Pairs by config (ab: new/old) when NUM and DEN are configs, else by a name level key=value."""
import sqlite3, sys, math, collections
from math import comb
db, run, num, den = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
unit = sys.argv[5] if len(sys.argv) > 5 else 'sec/op'
c = sqlite3.connect(db)
rows = c.execute('''select r.id, r.round, r.name, v.value from results r join result_values v on v.result_id=r.id
 where r.run_id=? and v.unit=?''', (run, unit)).fetchall()
cfg = dict((rid, val) for rid, val in c.execute('''select rc.result_id, rc.value from result_config rc join results r on r.id=rc.result_id where r.run_id=? and rc.key='config' ''', (run,)))
data = collections.defaultdict(dict)
import re
for rid, rnd, name, val in rows:
    conf = cfg.get(rid, '')
    name = re.sub(r'-\d+$', '', name)
    if '=' in num:  # a level
        k = num.split('=')[0]
        parts = name.split('/')
        lvl = [p for p in parts if p.startswith(k + '=')]
        if not lvl: continue
        side = lvl[0]
        key = '/'.join(p for p in parts if not p.startswith(k + '=')) + '@' + conf
    else:
        side = conf
        key = name
    data[(key, side)][rnd] = val
def sign_ci(d, conf=0.95):
    n = len(d); s = sorted(d)
    # largest k with P(Bin(n,1/2) <= k-1) <= alpha/2 -> interval s[k-1], s[n-k]
    alpha = 1 - conf; cum = 0; k = 0
    for j in range(n + 1):
        cum += comb(n, j) / 2**n
        if cum > alpha / 2: break
        k = j + 1
    if k == 0: return float('nan'), float('nan')
    return s[k - 1], s[n - k]
keys = sorted(set(k for k, _ in data))
for key in keys:
    a, b = data.get((key, num)), data.get((key, den))
    if not a or not b: continue
    d = [math.log(a[r] / b[r]) for r in sorted(set(a) & set(b)) if a[r] > 0 and b[r] > 0]
    if not d: continue
    s = sorted(d); n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    lo, hi = sign_ci(d)
    mean = sum(d) / n
    print(f"{key}: n={n} median {100*(math.exp(med)-1):+.2f}% sign-test [{100*(math.exp(lo)-1):+.2f}%, {100*(math.exp(hi)-1):+.2f}%] mean {100*(math.exp(mean)-1):+.2f}% range [{100*(math.exp(s[0])-1):+.1f}%, {100*(math.exp(s[-1])-1):+.1f}%]")
