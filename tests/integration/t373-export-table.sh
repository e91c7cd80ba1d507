#!/bin/sh
# SPDX-License-Identifier: MIT
# t373-export-table: a context-switch storm exported as CSV and JSON lines.  The CSV has one
# row per event (count and per-event counts equal `info`'s) and parses with Python's csv
# module; fields that collide with fixed columns get an f_ prefix; the decoded fields agree
# with libtraceevent's rendering in `trace` (next_pid per CPU); --stacks gives the events
# recorded with stacks a symbolized stack; JSON lines parse, one per event; -p and --time
# select what `trace` selects with the same options (a --time window inside the storm).
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

N=5000
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup -e 'sched:sched_process_exit//stack/' \
	-o ctx.cap -- "$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err ||
	{ cat rec.err; fail "pp-record failed"; }
pid=$(grep '^LOAD ' rec.err | tail -1 | tr ' ' '\n' | sed -n 's/^pid=//p')
[ -n "$pid" ] || fail "no LOAD line from ctxsw"

"$PP_ANALYZE" ctx.cap export --to csv --stacks -o all.csv || fail "export --to csv failed"
"$PP_ANALYZE" ctx.cap export --to jsonl -o all.jsonl || fail "export --to jsonl failed"
"$PP_ANALYZE" ctx.cap info --format json >info.json || fail "info failed"
"$PP_ANALYZE" ctx.cap trace -e sched:sched_switch >switch.txt || fail "trace failed"
"$PP_ANALYZE" ctx.cap export --to csv -p "$pid" -o pid.csv || fail "export -p failed"
"$PP_ANALYZE" ctx.cap trace -p "$pid" >pid.txt || fail "trace -p failed"
# a window inside the storm, at most 50 ms long: a fast machine runs the whole load in less
win=$(python3 -c '
import csv, sys
t = [float(r["time"]) for r in csv.DictReader(open(sys.argv[1]))]
a = t[len(t) // 3]
print("%.6f,%.6f" % (a, min(a + 0.05, t[2 * len(t) // 3])))' all.csv) || fail "no window from all.csv"
"$PP_ANALYZE" ctx.cap export --to jsonl --time "$win" -o range.jsonl ||
	fail "export --time failed"
"$PP_ANALYZE" ctx.cap trace --time "$win" >range.txt || fail "trace --time failed"

python3 - all.csv all.jsonl info.json switch.txt pid.csv pid.txt range.jsonl range.txt \
	"$pid" <<'PY' ||
import csv, json, re, sys
from collections import Counter

a = sys.argv
rows = list(csv.DictReader(open(a[1])))
lines = [json.loads(l) for l in open(a[2])]
info = json.load(open(a[3]))
switch = open(a[4]).read().splitlines()
pid_rows = list(csv.DictReader(open(a[5])))
pid_lines = [l for l in open(a[6]).read().splitlines() if l.strip()]
range_rows = [json.loads(l) for l in open(a[7])]
range_lines = [l for l in open(a[8]).read().splitlines() if l.strip()]
pid = int(a[9])
count = {e['name']: e['count'] for e in info['events']}
errors = []

if len(rows) != info['nr_events'] or Counter(r['event'] for r in rows) != Counter(count):
    errors.append('CSV: %d rows %s, info: %d %s' % (len(rows), Counter(r['event'] for r in rows),
                                                    info['nr_events'], count))
hdr = list(rows[0].keys())
if hdr[:6] != ['time', 'cpu', 'pid', 'tid', 'comm', 'event'] or hdr[-1] != 'stack':
    errors.append('CSV header %s' % hdr)
for col in ('prev_pid', 'next_pid', 'prev_state', 'f_pid', 'f_comm', 'target_cpu', 'group_dead'):
    if col not in hdr:
        errors.append('no column %s' % col)
times = [float(r['time']) for r in rows]
if times != sorted(times):
    errors.append('rows are not in time order')
mine = Counter((int(r['cpu']), int(r['next_pid'])) for r in rows
               if r['event'] == 'sched:sched_switch')
rx = re.compile(r'\[(\d+)\] [\d.]+: sched:sched_switch: .* next_pid=(\d+) next_prio=')
theirs = Counter((int(m.group(1)), int(m.group(2))) for m in map(rx.search, switch) if m)
if mine != theirs:
    errors.append('next_pid per CPU differs from trace: %d vs %d distinct' % (
        len(mine), len(theirs)))
# (the last switch of an exiting thread carries tid -1: perf cannot name a dead task)
if any(r['prev_pid'] != r['tid'] for r in rows
       if r['event'] == 'sched:sched_switch' and r['tid'] != '4294967295'):
    errors.append('a sched_switch row whose prev_pid is not its tid')
exits = [r for r in rows if r['event'] == 'sched:sched_process_exit']
if not exits or any(';' not in r['stack'] or 'do_exit' not in r['stack'] for r in exits):
    errors.append('sched_process_exit rows without a stack through do_exit: %s' %
                  [r['stack'] for r in exits][:2])
if any(r['stack'] for r in rows if r['event'] == 'sched:sched_switch'):
    errors.append('sched_switch rows have a stack but were recorded without one')

if len(lines) != len(rows) or Counter(l['event'] for l in lines) != Counter(count):
    errors.append('JSON lines: %d, CSV rows %d' % (len(lines), len(rows)))
wk = [l for l in lines if l['event'] == 'sched:sched_wakeup']
if wk and not all(isinstance(l['f_pid'], int) and isinstance(l['f_comm'], str) for l in wk):
    errors.append('sched_wakeup lines lack f_pid / f_comm')

if not pid_rows or any(int(r['pid']) != pid for r in pid_rows) or len(pid_rows) != len(pid_lines):
    errors.append('-p %d: %d rows, trace -p prints %d lines' % (pid, len(pid_rows), len(pid_lines)))
if len(range_rows) != len(range_lines) or not range_rows:
    errors.append('--time: %d lines, trace --time prints %d' % (len(range_rows), len(range_lines)))
elif range_rows[-1]['time'] - range_rows[0]['time'] > 0.05 + 1e-6:
    errors.append('--time: rows span %.6f s' % (range_rows[-1]['time'] - range_rows[0]['time']))
print('%d rows, %d columns; -p: %d rows; --time: %d rows' % (
    len(rows), len(hdr), len(pid_rows), len(range_rows)))
for e in errors:
    print('error:', e)
sys.exit(1 if errors else 0)
PY
	fail "table check failed"
exit 0
