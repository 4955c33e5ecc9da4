#!/usr/bin/env python3
"""storedmedian.py DB RUN NUM_CONFIG_OR_LEVEL DEN [UNIT]: from the stored rounds of a run,
per benchmark the per-round log-ratios num/den, their median and the exact
sign-test 95% interval (order statistics), independent of perflab's code.
Pairs by config (ab: new/old) when NUM and DEN are configs, else by a name level key=value.
A run whose builds were relinked with random layouts (its plan's layout.per_layout > 1) is
summarised as perflab does: each cluster of per_layout rounds on one layout by the median of
its log-ratios, then the median and interval over clusters."""
import sqlite3, sys, math, collections, json
from math import comb
db, run, num, den = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
unit = sys.argv[5] if len(sys.argv) > 5 else 'sec/op'
c = sqlite3.connect(db)
note = c.execute('select note from runs where id=?', (run,)).fetchone()[0]
try:
    per = (json.loads(note).get('layout') or {}).get('per_layout', 0)
except ValueError:
    per = 0
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
    rounds = [r for r in sorted(set(a) & set(b)) if a[r] > 0 and b[r] > 0]
    d = [math.log(a[r] / b[r]) for r in rounds]
    if not d: continue
    if per > 1:
        clusters = collections.defaultdict(list)
        for r, x in zip(rounds, d):
            clusters[(r - 1) // per].append(x)
        def med(xs):
            xs = sorted(xs); n = len(xs)
            return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
        d = [med(clusters[k]) for k in sorted(clusters)]
    s = sorted(d); n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    lo, hi = sign_ci(d)
    mean = sum(d) / n
    print(f"{key}: n={n}{' layouts' if per > 1 else ''} median {100*(math.exp(med)-1):+.2f}% sign-test [{100*(math.exp(lo)-1):+.2f}%, {100*(math.exp(hi)-1):+.2f}%] mean {100*(math.exp(mean)-1):+.2f}% range [{100*(math.exp(s[0])-1):+.1f}%, {100*(math.exp(s[-1])-1):+.1f}%]")
