#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# lat-ref.py - reference pairs for the multi-trace tests, computed from trace output.
#
# usage: lat-ref.py MODE TRACE_OUT DUMP_OUT
#   TRACE_OUT  `pp-analyze FILE trace` (every event, one line each, no stacks)
#   DUMP_OUT   `pp-analyze FILE dump`: its SAMPLE lines give the nanosecond times
#              (trace lines carry microseconds only); both list the samples in order
#   MODE       softirq  irq:softirq_entry -> irq:softirq_exit, key = CPU
#              wakeup   sched:sched_wakeup (key pid) -> sched:sched_switch (key
#                       next_pid), every switch unfiltered: a wakeup whose waker is
#                       the wakee, or whose wakee already runs on target_cpu, is not
#                       a start (perf-prof's sched_wakeup "unnecessary" rule)
# A LOST record (in the dump, in time order) makes the starts it may have cut off
# unsafe: the one of its CPU when the key is the CPU, every start otherwise.
# Prints "pairs N p50 A p95 B p99 C" (microseconds, nearest-rank percentiles of the
# exact nanosecond deltas).  The matching is written from the documented rules
# (PERF-PROF-REFERENCE 4.1), independently of the engine: one backup per key,
# replaced by a newer start, consumed by an end when older than it.
import math
import re
import sys

LINE = re.compile(r'^\S+ \S+\s+(.*?)\s+(\d+) (\S{4}) \[(\d+)\] (\d+\.\d+): (\S+): (.*)$')


def fields(text):
    return dict(re.findall(r'(\w+)=(\S+)', text))


def main():
    mode, trace_path, dump_path = sys.argv[1:4]
    recs = []	# ('S', time) or ('L', cpu), in capture order
    for l in open(dump_path):
        w = l.split()
        if len(w) > 1 and w[1] == 'SAMPLE':
            recs.append(('S', int(w[0])))
        elif len(w) > 2 and w[1] == 'LOST':
            recs.append(('L', int(w[2].split('=')[1])))
    times = [v for k, v in recs if k == 'S']
    events = []
    for l in open(trace_path):
        if l.startswith(' '):
            continue
        m = LINE.match(l.rstrip('\n'))
        if not m:
            sys.exit('cannot parse trace line: ' + l)
        events.append((int(m.group(2)), int(m.group(4)), m.group(6), fields(m.group(7))))
    if len(events) != len(times):
        sys.exit('trace has %d events, dump %d samples' % (len(events), len(times)))

    backup = {}
    running = {}
    deltas = []
    it = iter(events)
    for kind, v in recs:
        if kind == 'L':
            if mode == 'softirq':
                backup.pop(v, None)
            else:
                backup.clear()
            continue
        t = v
        tid, cpu, name, f = next(it)
        if mode == 'softirq':
            if name == 'irq:softirq_exit' and cpu in backup:
                t1 = backup.pop(cpu)
                if t1 < t:
                    deltas.append(t - t1)
            elif name == 'irq:softirq_entry':
                backup[cpu] = t
        else:
            if name == 'sched:sched_switch':
                nxt = int(f['next_pid'])
                running[cpu] = nxt
                if nxt in backup:
                    t1 = backup.pop(nxt)
                    if t1 < t:
                        deltas.append(t - t1)
            elif name == 'sched:sched_wakeup':
                pid, target = int(f['pid']), int(f['target_cpu'])
                if tid == pid or running.get(target) == pid:
                    continue
                if pid not in backup or backup[pid] <= t:
                    backup[pid] = t
    deltas.sort()

    def pct(p):
        if not deltas:
            return 0.0
        i = max(0, math.ceil(p / 100.0 * len(deltas)) - 1)
        return deltas[i] / 1000.0

    print('pairs %d p50 %.3f p95 %.3f p99 %.3f' % (len(deltas), pct(50), pct(95), pct(99)))


main()
