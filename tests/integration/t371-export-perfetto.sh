#!/bin/sh
# SPDX-License-Identifier: MIT
# t371-export-perfetto: a context-switch storm plus process events with kernel stacks,
# exported as a Perfetto protobuf trace and decoded by an independent decoder (protoc
# --decode_raw).  Every sched_switch / sched_wakeup / sched_wakeup_new of the capture is one
# FtraceEvent of the right kind in a per-CPU bundle (counts equal `info`'s), with the same
# CPUs; every other event is one instant TrackEvent on a track declared by a thread
# TrackDescriptor; events recorded with stacks carry a callstack; a ClockSnapshot gives
# CLOCK_REALTIME; the ctxsw threads are announced in a ProcessTree.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
command -v protoc >/dev/null || skip "protoc is not installed (Debian package protobuf-compiler)"

N=5000
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new \
	-e 'sched:sched_process_exit//stack/' -e sched:sched_process_fork -o ctx.cap -- \
	"$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err || { cat rec.err; fail "pp-record failed"; }
tids=$(grep '^LOAD ' rec.err | tail -1 | tr ' ' '\n' | sed -n 's/^tids=//p')
[ -n "$tids" ] || fail "no LOAD line from ctxsw"

"$PP_ANALYZE" ctx.cap export --to perfetto -o trace.pftrace || fail "export --to perfetto failed"
protoc --decode_raw <trace.pftrace >trace.txt || fail "protoc cannot decode the trace"
"$PP_ANALYZE" ctx.cap info --format json >info.json || fail "info failed"
"$PP_ANALYZE" ctx.cap export --to csv -e sched:sched_switch -o switch.csv || fail "csv failed"

PYTHONPATH=$TOP/tests/integration python3 - trace.txt info.json switch.csv "$tids" <<'PY' ||
import csv, json, sys
from collections import Counter
from pbtext import parse, get, one, unquote

trace = parse(open(sys.argv[1]).read())
info = json.load(open(sys.argv[2]))
tids = [int(t) for t in sys.argv[4].split(',')]
count = {e['name']: e['count'] for e in info['events']}
errors = []

kinds, per_cpu, track_events, descs, threads = Counter(), Counter(), [], {}, {}
clock = None
for name, packet in trace:
    if name != '1' or not isinstance(packet, list):
        errors.append('a top-level field %s is not a TracePacket' % name)
        continue
    for bundle in get(packet, '1'):                 # ftrace_events
        cpu = int(one(bundle, '1', '0'))
        for ev in get(bundle, '2'):
            kind = [n for n, v in ev if isinstance(v, list)]
            kinds[tuple(kind)] += 1
            per_cpu[cpu] += 1
            if one(ev, '1') is None or one(ev, '2') is None:
                errors.append('an FtraceEvent without timestamp or pid')
    for te in get(packet, '11'):                    # track_event
        track_events.append((te, one(packet, '8'), one(packet, '10')))
    for td in get(packet, '60'):                    # track_descriptor
        th = one(td, '4')
        if th is not None:
            descs[one(td, '1')] = (int(one(th, '1')), int(one(th, '2')))
    for pt in get(packet, '2'):                     # process_tree
        for t in get(pt, '2'):
            threads[int(one(t, '1'))] = (int(one(t, '3')), unquote(one(t, '2', '""')))
    for cs in get(packet, '6'):                     # clock_snapshot
        clock = {int(one(c, '1')): int(one(c, '2')) for c in get(cs, '1')}

want = {('4',): 'sched:sched_switch', ('17',): 'sched:sched_wakeup',
        ('114',): 'sched:sched_wakeup_new'}
for k, name in want.items():
    if kinds[k] != count.get(name, 0):
        errors.append('%s: %d FtraceEvents, info counts %d' % (name, kinds[k], count.get(name, 0)))
if set(kinds) - set(want):
    errors.append('unexpected FtraceEvent kinds: %s' % (set(kinds) - set(want)))
rows = list(csv.DictReader(open(sys.argv[3])))
switch_cpus = Counter(int(r['cpu']) for r in rows)
if sum(per_cpu.values()) != sum(count.get(n, 0) for n in want.values()):
    errors.append('bundles hold %d events' % sum(per_cpu.values()))
if not set(switch_cpus) <= set(per_cpu):
    errors.append('bundle CPUs %s miss sched_switch CPUs %s' % (set(per_cpu), set(switch_cpus)))

others = {n: c for n, c in count.items() if n not in want.values()}
te_names = Counter(unquote(one(te, '23', '""')) for te, _, _ in track_events)
if dict(te_names) != others:
    errors.append('track events %s, info counts %s' % (dict(te_names), others))
for te, ts, seq in track_events:
    if one(te, '9') != '3' or ts is None or seq is None:
        errors.append('a track event that is not an instant with a timestamp on a sequence')
        break
    if one(te, '11') not in descs:
        errors.append('a track event on an undeclared track %s' % one(te, '11'))
        break
stacked = [te for te, _, _ in track_events
           if unquote(one(te, '23', '""')) == 'sched:sched_process_exit']
if not stacked or any(not get(one(te, '55', []), '1') for te in stacked):
    errors.append('sched_process_exit events lack their callstack')
if not clock or 1 not in clock or 6 not in clock:
    errors.append('no ClockSnapshot with REALTIME and BOOTTIME: %s' % clock)
for tid in tids:
    if threads.get(tid, (0, ''))[1] != 'ctxsw':
        errors.append('tid %d not announced as ctxsw: %s' % (tid, threads.get(tid)))
print('ftrace events %s on CPUs %s, %d track events, %d thread tracks, %d threads' % (
    dict(kinds), dict(per_cpu), len(track_events), len(descs), len(threads)))
for e in errors:
    print('error:', e)
sys.exit(1 if errors else 0)
PY
	fail "perfetto check failed"
exit 0
