#!/usr/bin/env python3
"""layoutcorpus.py DB RUN OUT.csv.gz NOTE: writes the rounds of a stored A/A
perflab ab run with random link layouts (both sides the same source, e.g.
perflab ab HEAD HEAD . -bench X --layout random --rounds 120) as a layout
corpus for analysis/calibration_test.go: one line per benchmark and round,
with the layout cluster the round belonged to and both sides' sec/op."""
import sqlite3, sys, json, gzip, collections, re, datetime
db, run, out, note = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = sqlite3.connect(db)
plan = json.loads(c.execute('select note from runs where id=?', (run,)).fetchone()[0])
per = (plan.get('layout') or {}).get('per_layout', 0)
if per < 2:
    sys.exit('run %d did not sample layouts in clusters (plan: %s)' % (run, plan.get('layout')))
rows = c.execute('''select r.id, r.round, r.name, v.value from results r join result_values v on v.result_id=r.id
 where r.run_id=? and v.unit='sec/op' ''', (run,)).fetchall()
cfg = dict(c.execute('''select rc.result_id, rc.value from result_config rc join results r on r.id=rc.result_id
 where r.run_id=? and rc.key='config' ''', (run,)))
data = collections.defaultdict(dict)
for rid, rnd, name, val in rows:
    data[(re.sub(r'-\d+$', '', name), rnd)][cfg.get(rid, '')] = val
with gzip.open(out, 'wt') as f:
    f.write('# layoutcorpus %s run=%d per_layout=%d recorded=%s\n' % (note, run, per, datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')))
    f.write('cluster,round,bench,old,new\n')
    for (bench, rnd) in sorted(data, key=lambda k: (k[0], k[1])):
        v = data[(bench, rnd)]
        if 'old' in v and 'new' in v:
            f.write('%d,%d,%s,%.6g,%.6g\n' % ((rnd - 1) // per + 1, rnd, bench, v['old'], v['new']))
