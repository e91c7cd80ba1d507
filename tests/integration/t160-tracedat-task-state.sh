#!/bin/sh
# SPDX-License-Identifier: MIT
# t160-tracedat-task-state: the same sleeper load (K sleeps of 10 ms) recorded by trace-cmd
# record and by pp-record: task-state on the trace.dat's capture counts the K S stays (one
# or two may be short, as t351 explains) and its p50 is within 1 % of pp-record's.
#
# Both p50s lie in [10.0, 10.6] ms (timer slack plus wakeup latency, t351); 1 % of 10 ms is
# 100 us, more than two idle recordings of the same load differ by.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-tracedat.sh"
need_event sched:sched_switch
need_trace_cmd
idle_cpu
K=50

# s_row FILE TID: "calls p50" of TID's S row in task-state --perins
s_row() {
	"$PP_ANALYZE" "$1" task-state --perins -t "$2" >ts.txt 2>ts.err || { cat ts.err; fail "task-state on $1"; }
	awk -v t="$2" '$1 == t && $3 == "S" { print $4, $7 }' ts.txt
}

# t160.1 trace-cmd's recording, analysed as it is (pp-analyze FILE.dat task-state)
tc_record -e sched:sched_switch -e sched:sched_wakeup -o s.dat \
	taskset -c "$IDLE_CPU" "$PP_LOAD/sleeper" -n $K -s 10ms
[ -n "$LOAD" ] || { cat tc.err; fail "no LOAD line"; }
k1=$(load_field "$LOAD" nanosleep)
tid1=$(load_field "$LOAD" tids)
td_capture s.dat s.ppcap
assert_eq "events lost by trace-cmd" 0 "$(td_fact s.ppcap lost)"
set -- $(s_row s.dat "$tid1")
[ $# = 2 ] || { cat ts.txt; fail "no S row for thread $tid1 in the trace.dat"; }
calls1=$1 p50_1=$2
assert_between "S stays from trace.dat" $((k1 - 2)) "$k1" "$calls1"

# t160.2 pp-record's recording of the same load
"$PP_RECORD" --for 'task-state --filter sleeper' -a -m 1024 -o s.pp -- \
	taskset -c "$IDLE_CPU" "$PP_LOAD/sleeper" -n $K -s 10ms >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record"; }
load=$(grep '^LOAD sleeper' rec.err) || fail "no LOAD line from pp-record's run"
k2=$(load_field "$load" nanosleep)
tid2=$(load_field "$load" tids)
set -- $(s_row s.pp "$tid2")
[ $# = 2 ] || { cat ts.txt; fail "no S row for thread $tid2 in pp-record's capture"; }
calls2=$1 p50_2=$2
assert_between "S stays from pp-record" $((k2 - 2)) "$k2" "$calls2"
assert_eq "S stays, trace.dat vs pp-record (K each)" "$((k2 - calls2))" "$((k1 - calls1))"

# t160.3 the p50s within 1 % of each other, both where the sleeps put them
assert_between "p50 of S from trace.dat (us)" 10000 10600 "$p50_1"
awk -v a="$p50_1" -v b="$p50_2" 'BEGIN {
	d = a - b; if (d < 0) d = -d; m = a > b ? a : b
	if (d * 100 > m) { printf "p50 %s vs %s: more than 1%% apart\n", a, b; exit 1 } }' ||
	fail "p50 of S differs"
exit 0
