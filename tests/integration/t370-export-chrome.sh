#!/bin/sh
# SPDX-License-Identifier: MIT
# t370-export-chrome: a context-switch storm between two pinned threads, exported as Chrome
# trace JSON.  The JSON parses; its CPU tracks hold exactly one slice per pair of
# consecutive sched_switch events on a CPU (counted independently from `trace` output,
# idle excluded), starting at the same microsecond and naming the same thread; each
# thread's state slices tile its time without gaps or overlaps; both ctxsw threads are
# named, with one Running slice per switch-in and one Sleeping slice per switch-out in
# state S; other events are instants.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

N=20000
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new \
	-e sched:sched_process_exec,sched:sched_process_exit -o ctx.cap -- \
	"$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err || { cat rec.err; fail "pp-record failed"; }
tids=$(grep '^LOAD ' rec.err | tail -1 | tr ' ' '\n' | sed -n 's/^tids=//p')
[ -n "$tids" ] || fail "no LOAD line from ctxsw"

"$PP_ANALYZE" ctx.cap export --to chrome -o trace.json || fail "export --to chrome failed"
"$PP_ANALYZE" ctx.cap trace -e sched:sched_switch >switch.txt || fail "trace failed"
"$PP_ANALYZE" ctx.cap info --format json >info.json || fail "info failed"

python3 - trace.json switch.txt info.json "$tids" $N <<'PY' || fail "chrome JSON check failed"
import json, math, re, sys
from collections import Counter, defaultdict

trace = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
info = json.load(open(sys.argv[3]))
tids = [int(t) for t in sys.argv[4].split(',')]
n = int(sys.argv[5])
ev = trace['traceEvents']
errors = []

# independent count: consecutive sched_switch pairs per CPU from the trace text
per_cpu = defaultdict(list)
rx = re.compile(r'\[(\d+)\] (\d+)\.(\d+): sched:sched_switch: .* next_pid=(\d+) next_prio=')
for l in lines:
    m = rx.search(l)
    if m:
        us = int(m.group(2)) * 1000000 + int(m.group(3))
        per_cpu[int(m.group(1))].append((us, int(m.group(4))))
expect_closed, expect_open = [], 0
for cpu, sw in per_cpu.items():
    for i in range(len(sw) - 1):
        if sw[i][1] != 0:
            expect_closed.append((cpu, sw[i][0], sw[i][1]))
    if sw and sw[-1][1] != 0:
        expect_open += 1
nr_switch = sum(len(v) for v in per_cpu.values())
info_switch = [e['count'] for e in info['events'] if e['name'] == 'sched:sched_switch'][0]
if nr_switch != info_switch:
    errors.append('trace printed %d sched_switch, info counts %d' % (nr_switch, info_switch))

cpu_pid = [e['pid'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'
           and e['args']['name'] == 'CPUs'][0]
cpu_of = {e['tid']: int(e['args']['name'].split()[1]) for e in ev
          if e['ph'] == 'M' and e['name'] == 'thread_name' and e['pid'] == cpu_pid}
slices = [e for e in ev if e['ph'] == 'X' and e.get('cat') == 'cpu']
closed = sorted((cpu_of[e['tid']], math.floor(e['ts'] + 1e-6), e['args']['tid'])
                for e in slices if 'open' not in e['args'])
opened = [e for e in slices if 'open' in e['args']]
if closed != sorted(expect_closed):
    errors.append('CPU slices: %d closed, %d sched_switch pairs; first differences: %s' % (
        len(closed), len(expect_closed),
        [x for x in zip(closed, sorted(expect_closed)) if x[0] != x[1]][:3]))
if len(opened) != expect_open:
    errors.append('%d open CPU slices, expected %d' % (len(opened), expect_open))
if any(e['pid'] != cpu_pid or e['dur'] < 0 for e in slices):
    errors.append('a CPU slice is off the CPU tracks or has a negative duration')

# thread states: they tile each thread's time; the ctxsw threads run once per switch-in
# and sleep once per switch-out in state S
by_tid = defaultdict(list)
for e in ev:
    if e['ph'] == 'X' and e.get('cat') == 'state':
        by_tid[e['tid']].append(e)
for tid, sl in by_tid.items():
    sl.sort(key=lambda e: e['ts'])
    for a, b in zip(sl, sl[1:]):
        if abs(a['ts'] + a['dur'] - b['ts']) > 0.002:
            errors.append('tid %d: state slices do not tile at ts %.3f' % (tid, a['ts']))
            break
names = {e['tid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}
rx_in = re.compile(r'next_pid=(\d+) next_prio=')
rx_out = re.compile(r'prev_pid=(\d+) prev_prio=\S+ prev_state=(\S+) ==>')
ins, sleeps = Counter(), Counter()
for l in lines:
    m = rx_in.search(l)
    if m:
        ins[int(m.group(1))] += 1
    m = rx_out.search(l)
    if m and m.group(2) == 'S':
        sleeps[int(m.group(1))] += 1
for tid in tids:
    c = Counter(e['name'] for e in by_tid[tid])
    if names.get(tid) != 'ctxsw':
        errors.append('tid %d is named %r' % (tid, names.get(tid)))
    # each thread runs once a round trip, but for the peer's first read, which may not block
    if c['Running'] != ins[tid] or c['Sleeping'] != sleeps[tid] or ins[tid] < n - 1:
        errors.append('tid %d: %d Running, %d Sleeping slices; %d switch-ins, %d sleeps, %d trips'
                      % (tid, c['Running'], c['Sleeping'], ins[tid], sleeps[tid], n))

# everything else is an instant event
for name in ('sched:sched_process_exec', 'sched:sched_process_exit'):
    want = sum(e['count'] for e in info['events'] if e['name'] == name)
    got = sum(1 for e in ev if e['ph'] == 'i' and e['name'] == name)
    if want != got:
        errors.append('%s: %d instant events, info counts %d' % (name, got, want))
md = trace['metadata']
if 'realtime_offset_ns' not in md or not md.get('wall_clock_start'):
    errors.append('no wall-clock base in the metadata: %s' % md)
print('%d CPU slices (%d open), %d sched_switch, %d state slices' % (
    len(slices), len(opened), nr_switch, sum(len(v) for v in by_tid.values())))
for e in errors:
    print('error:', e)
sys.exit(1 if errors else 0)
PY

# the core's filters apply: -C 1 leaves no CPU 0 track, --time narrows the range
"$PP_ANALYZE" ctx.cap export --to chrome -C 1 -o c1.json || fail "export -C 1 failed"
python3 -c "
import json, sys
ev = json.load(open('c1.json'))['traceEvents']
names = {e['tid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}
bad = [e for e in ev if e['ph'] == 'X' and e.get('cat') == 'cpu' and names[e['tid']] != 'CPU 1']
sys.exit(1 if bad else 0)" || fail "-C 1 still exports other CPUs"
exit 0
