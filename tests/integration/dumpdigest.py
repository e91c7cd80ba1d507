# SPDX-License-Identifier: MIT
"""dumpdigest.py - the DIGEST segments of a `pp-analyze FILE dump`, checked against the
segments they name (docs/capture-format.md "Side-band digests").

usage: python3 dumpdigest.py DUMP [--all] [--records OUT]

An entry that names a segment (segment=N) must copy exactly the side-band lines of
segment N (its records but the SAMPLEs, as dump prints them): else exit 1.  --all: every
EVENTS segment with side band must be named by an entry, and no digest may be unused or
skipped.  --records OUT: the lines of the records outside the digests into OUT, for a
comparison with another dump of the same records.  Prints, last, one line of counts:
  segments S side T named N entries E none O digests D ok K unused U skipped P
"""
import re
import sys


def main():
    args = sys.argv[1:]
    want_all = '--all' in args
    out = None
    if '--records' in args:
        out = args[args.index('--records') + 1]
        args.remove(out)
    path = [a for a in args if not a.startswith('--')][0]
    segs, entries, records = {}, [], []
    kind = cur = None
    n = {'digests': 0, 'ok': 0, 'unused': 0, 'skipped': 0}
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r'# segment (\d+) (\w+) ', line)
        if m:
            cur, kind = int(m.group(1)), m.group(2)
            if kind == 'events':
                segs[cur] = []
            n['digests'] += kind == 'digest'
            continue
        if line.startswith('# digest ok'):
            n['ok'] += 1
        elif line.startswith('# digest not used'):
            n['unused'] += 1
            print(line)
        elif line.startswith('# skipped'):
            n['skipped'] += 1
            print(line)
        if line.startswith('#'):
            continue
        if kind != 'digest':
            records.append(line)
            if kind == 'events' and ' SAMPLE ' not in line:
                segs[cur].append(line)
        elif line.startswith('DIGEST_SEG '):
            entries.append([re.search(r' segment=(\S+)$', line).group(1), []])
        elif line.startswith('  ') and entries:
            entries[-1][1].append(line[2:])
        else:
            print('a line of a digest that is neither an entry nor a copy: %r' % line)
            return 1
    if out:
        with open(out, 'w') as f:
            f.write('\n'.join(records) + '\n')
    named, none, rc = set(), 0, 0
    for s, copies in entries:
        if s == 'none':
            none += 1
            continue
        if segs.get(int(s)) != copies:
            print('segment %s: the entry copies %d records, the segment has %d of side band'
                  % (s, len(copies), len(segs.get(int(s), []))))
            rc = 1
        named.add(int(s))
    side = sorted(k for k, v in segs.items() if v)
    missing = [k for k in side if k not in named]
    if want_all and (missing or n['unused'] or n['skipped']):
        print('segments with side band that no entry names: %s' % missing)
        rc = 1
    # the counts last
    print('segments %d side %d named %d entries %d none %d digests %d ok %d unused %d skipped %d'
          % (len(segs), len(side), len(named & set(side)), len(entries), none, n['digests'],
             n['ok'], n['unused'], n['skipped']))
    return rc


sys.exit(main())
