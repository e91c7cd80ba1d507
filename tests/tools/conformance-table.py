#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""conformance-table.py - compare two runs of perf-prof's test suite (docs/conformance.md).

usage: conformance-table.py PERF_PROF_JUNIT.xml PP_JUNIT.xml [--failures]

Both files are the junit.xml that the conformance runner writes (one for perf-prof itself,
one for pp, same machine and runtime).  Prints a Markdown table, one row per test file with
passed/failed/skipped for both, and the totals; with --failures, the tests perf-prof passes
and pp does not, one line each with the first line of pp's failure message.
"""
import collections
import sys
import xml.etree.ElementTree as ET


def results(path):
    out = collections.OrderedDict()
    for tc in ET.parse(path).getroot().iter('testcase'):
        name = tc.get('classname', '?') + '::' + tc.get('name', '?')
        bad = tc.find('failure')
        if bad is None:
            bad = tc.find('error')
        if bad is not None:
            msg = (bad.get('message') or bad.text or '').strip().splitlines()
            out[name] = ('failed', msg[0][:160] if msg else '')
        elif tc.find('skipped') is not None:
            out[name] = ('skipped', '')
        else:
            out[name] = ('passed', '')
    return out


def per_file(res):
    files = collections.OrderedDict()
    for name, (r, _) in res.items():
        files.setdefault(name.split('::')[0].split('.')[0], collections.Counter())[r] += 1
    return files


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2])
    ref, pp = results(sys.argv[1]), results(sys.argv[2])
    fr, fp = per_file(ref), per_file(pp)
    print('| test file | perf-prof passed | failed | skipped | pp passed | failed | skipped |')
    print('|---|---|---|---|---|---|---|')
    tr, tp = collections.Counter(), collections.Counter()
    for f in sorted(set(fr) | set(fp)):
        a, b = fr.get(f, collections.Counter()), fp.get(f, collections.Counter())
        tr.update(a)
        tp.update(b)
        print(f"| {f} | {a['passed']} | {a['failed']} | {a['skipped']} | "
              f"{b['passed']} | {b['failed']} | {b['skipped']} |")
    print(f"| **total** | **{tr['passed']}** | {tr['failed']} | {tr['skipped']} | "
          f"**{tp['passed']}** | {tp['failed']} | {tp['skipped']} |")
    both = sum(1 for n, (r, _) in ref.items() if r == 'passed' and pp.get(n, ('',))[0] == 'passed')
    only_pp = sum(1 for n, (r, _) in pp.items() if r == 'passed' and ref.get(n, ('',))[0] != 'passed')
    print(f"\nBoth pass {both}; pp passes {only_pp} that perf-prof does not.")
    if '--failures' in sys.argv:
        print('\nperf-prof passes, pp does not:\n')
        for n, (r, _) in ref.items():
            if r == 'passed' and pp.get(n, ('missing', ''))[0] != 'passed':
                print(f"- `{n}`: {pp.get(n, ('missing', ''))[0]}: {pp.get(n, ('', ''))[1]}")


if __name__ == '__main__':
    main()
