#!/usr/bin/env python3
"""cmpchecks.py A.log B.log: compares the CHECK tables of two `perflab run`
terminal outputs (e.g. two quick suites run back to back): how many counted
checks that A could test have the same verdict in B, which changed, and
whether any went from reproduced to contradicted or back. Context checks
(", context") are left out, as the claims' verdicts leave them out."""
import re
import sys

CHECK = re.compile(r'^([A-Z]\d+\.[\w.]+)\s+(reproduced|contradicted|inconclusive|not testable)((?: \(look \d\))?)(, context)?\s')
CLAIM = re.compile(r'^([A-Z]\d+)\s+(reproduced|contradicted|inconclusive|not testable)\s')


def parse(path):
    checks, claims = {}, {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = CHECK.match(line)
            if m:
                checks[m.group(1)] = (m.group(2), bool(m.group(4)))
                continue
            m = CLAIM.match(line)
            if m:
                claims[m.group(1)] = m.group(2)
    return checks, claims


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, ca = parse(sys.argv[1])
    b, cb = parse(sys.argv[2])
    counted = [k for k in a if not a[k][1] and a[k][0] != 'not testable' and k in b]
    if not counted:
        sys.exit('no counted checks that A could test appear in both logs')
    same = [k for k in counted if a[k][0] == b[k][0]]
    flips = [k for k in counted if {a[k][0], b[k][0]} == {'reproduced', 'contradicted'}]
    print(f"counted checks A could test: {len(counted)}; same verdict in B: {len(same)} "
          f"({100 * len(same) / len(counted):.0f}%); reproduced<->contradicted: {', '.join(flips) or 'none'}")
    for k in counted:
        if a[k][0] != b[k][0]:
            print(f"  {k}: {a[k][0]} -> {b[k][0]}")
    both = [k for k in ca if k in cb]
    print(f"claims: {sum(ca[k] == cb[k] for k in both)} of {len(both)} the same")
    print("inconclusive counted checks: A", sum(a[k][0] == 'inconclusive' for k in counted),
          "B", sum(b[k][0] == 'inconclusive' for k in counted))


if __name__ == '__main__':
    main()
