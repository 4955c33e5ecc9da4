#!/usr/bin/env python3
"""layoutcorpus.py OUT.csv.gz NOTE DB... : writes the rounds of stored A/A
perflab ab runs with random link layouts (run 1 of each DB) as a layout
corpus for analysis/calibration_test.go: one line per benchmark and round,
with the layout cluster the round belonged to (numbered across the runs)
and both sides' sec/op. An A/A over layouts compares two builds whose
only difference is code that never runs (or two copies of one source), so
that each side is relinked with its own layouts; two configs sharing one
build would share its layout and cancel it."""
import sqlite3, sys, json, gzip, collections, re, datetime
out, note, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
lines, per_max, offset = [], 0, 0
for db in dbs:
    c = sqlite3.connect(db)
    plan = json.loads(c.execute('select note from runs where id=1').fetchone()[0])
    per = (plan.get('layout') or {}).get('per_layout', 0)
    if per < 2:
        sys.exit('%s: run 1 did not sample layouts in clusters (plan: %s)' % (db, plan.get('layout')))
    per_max = max(per_max, per)
    rows = c.execute('''select r.id, r.round, r.name, v.value from results r join result_values v on v.result_id=r.id
     where r.run_id=1 and v.unit='sec/op' ''').fetchall()
    cfg = dict(c.execute('''select rc.result_id, rc.value from result_config rc join results r on r.id=rc.result_id
     where r.run_id=1 and rc.key='config' '''))
    data = collections.defaultdict(dict)
    for rid, rnd, name, val in rows:
        data[(re.sub(r'-\d+$', '', name), rnd)][cfg.get(rid, '')] = val
    last = 0
    for (bench, rnd) in sorted(data, key=lambda k: (k[0], k[1])):
        v = data[(bench, rnd)]
        if 'old' in v and 'new' in v:
            cl = (rnd - 1) // per + 1
            last = max(last, cl)
            lines.append((offset + cl, bench, rnd, v['old'], v['new']))
    offset += last
with gzip.open(out, 'wt') as f:
    f.write('# layoutcorpus %s runs=%d per_layout=%d recorded=%s\n' % (note, len(dbs), per_max, datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')))
    f.write('cluster,round,bench,old,new\n')
    for cl, bench, rnd, o, n in sorted(lines, key=lambda x: (x[1], x[0], x[2])):
        f.write('%d,%d,%s,%.6g,%.6g\n' % (cl, rnd, bench, o, n))
