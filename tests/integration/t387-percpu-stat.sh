#!/bin/sh
# SPDX-License-Identifier: MIT
# t387-percpu-stat: percpu-stat's counters against the events themselves.  A context-switch
# storm pinned to CPU 1 is recorded with percpu-stat's counters and sched:sched_switch
# (through perf, so pp-record's own switches are in both) in one capture: the CPU's
# context-switch count equals top's sched_switch count of that CPU, but for the few
# switches between enabling the event and the counter at the edges (10 at most; the storm
# makes 2 a round trip, 40000 here).  Also: the layout (title row, a row per CPU, [ALL] =
# the sum of the rows), --syscalls adds its column, JSON and CSV agree with the text, -e
# is refused, and a capture without its events is refused in one line.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the storm is pinned to CPU 1)"

"$PP_RECORD" -q --no-ftrace --for 'percpu-stat --syscalls' -e sched:sched_switch -o ps.cap -- \
	"$PP_LOAD/ctxsw" -n 20000 -c 1 2>rec.err || { cat rec.err; fail "pp-record"; }
"$PP_ANALYZE" ps.cap percpu-stat --syscalls -i 100000 --format csv >ps.csv || fail "csv"
csw=$(awk -F, '$2 == 1 && $3 == "context-switches" { s += $4 } END { print s + 0 }' ps.csv)
top=$("$PP_ANALYZE" ps.cap top -e 'sched:sched_switch//key=_cpu/' -i 100000 | awk '$1 == 1 { print $2 }')
echo "CPU 1: context-switches $csw, sched_switch $top"
assert_ge "t387.1 storm switches counted" 40000 "$csw"
d=$((csw - top)); [ $d -lt 0 ] && d=$((-d))
[ $d -le 10 ] || fail "t387.1 context-switches $csw vs sched_switch $top: $d apart"

# t387.2 the text layout: [ALL] is the sum of the CPU rows, column by column
"$PP_ANALYZE" ps.cap percpu-stat --syscalls -i 100000 >ps.txt || fail "text"
cat ps.txt
grep -q '^\[CPU\]  SOFT csw cpu-mig minflt majflt  syscalls ' ps.txt || fail "t387.2 title row"
awk '/^\[[0-9]+\]/ { for (i = 2; i <= NF; i++) s[i] += $i }
     /^\[ALL\]/ { for (i = 2; i <= NF; i++) if ($i != s[i]) bad = 1; seen = 1 }
     END { exit !(seen && !bad) }' ps.txt || fail "t387.2 [ALL] is not the sum of the rows"
row=$(awk '$1 == "[001]" { print $2 }' ps.txt)
assert_eq "t387.2 text = CSV for CPU 1" "$csw" "$row"

# t387.3 JSON
"$PP_ANALYZE" ps.cap percpu-stat --syscalls -i 100000 --format json >ps.json || fail "json"
j=$(python3 -c 'import sys, json
print(sum(json.loads(l)["counts"]["context-switches"] for l in sys.stdin if json.loads(l)["cpu"] == 1))' <ps.json)
assert_eq "t387.3 JSON = CSV" "$csw" "$j"

# t387.4 refusals
"$PP_ANALYZE" ps.cap percpu-stat -e sched:sched_switch >/dev/null 2>bad.err && fail "t387.4 -e accepted"
"$PP_RECORD" -q -e sched:sched_switch -o plain.cap -- true 2>/dev/null || fail "plain record"
"$PP_ANALYZE" plain.cap percpu-stat >/dev/null 2>bad.err && fail "t387.4 no counters accepted"
cat bad.err
grep -q 'none of its events' bad.err || fail "t387.4 no reason"
echo PASS
