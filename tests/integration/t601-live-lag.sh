#!/bin/sh
# SPDX-License-Identifier: MIT
# t601-live-lag: in live mode (`pp ANALYZER`, i.e. pp-record -o - | pp-analyze -) an
# interval report reaches the reader within 200 ms of the end of its interval, and a
# traced event within 200 ms of when it happened.  The lag is the arrival time of the
# line (wall clock, stamped by a reader on the pipe) minus the wall time the report or
# event carries.  Reports come with frequent events (sched_switch) and with rare ones
# (exec: the interval then ends on pp-record's time syncs).  A loaded machine may delay
# one report: all but one must be within 200 ms, and none over 500 ms.
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "live report lag"
need_event sched:sched_switch
need_event sched:sched_process_exec
command -v python3 >/dev/null 2>&1 || skip "no python3 to stamp the lines"
LAG=$TOP/tests/integration/live-lag.py

# check NAME FILE MIN: lines of lags in ms then rc=N
check() {
	tr '\n' ' ' <"$2"
	echo
	rc=$(sed -n 's/^rc=//p' "$2")
	grep -v '^rc=' "$2" >lags.txt
	[ "$rc" = 0 ] || { cat lag.err; fail "$1: exit status $rc"; }
	assert_ge "$1: reports" "$3" "$(wc -l <lags.txt)"
	over=$(awk '$1 > 200' lags.txt | wc -l)
	max=$(sort -n lags.txt | tail -1)
	echo "$1: $(wc -l <lags.txt) lines, $over over 200 ms, max $max ms"
	[ "$over" -le 1 ] || fail "$1: $over reports later than 200 ms"
	[ "$max" -le 500 ] || fail "$1: a report $max ms late"
}

python3 "$LAG" 5 hdr "$PP" top -e sched:sched_switch -i 500 >top.lag
check "top -i 500 (sched_switch)" top.lag 7

# rare events: execs every 300 ms
( for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do /bin/true; sleep 0.3; done ) &
python3 "$LAG" 5 hdr "$PP" top -e sched:sched_process_exec -i 500 >exec.lag
wait
check "top -i 500 (exec)" exec.lag 7

python3 "$LAG" 3 line "$PP" trace -e sched:sched_switch >trace.lag
rc=$(sed -n 's/^rc=//p' trace.lag)
assert_eq "trace exit status" 0 "$rc"
grep -v '^rc=' trace.lag | sort -n >tl.txt
n=$(wc -l <tl.txt)
assert_ge "trace lines" 100 "$n"
p95=$(sed -n "$((n * 95 / 100 + 1))p" tl.txt)
p50=$(sed -n "$((n / 2 + 1))p" tl.txt)
echo "trace: $n events, lag p50 $p50 ms, p95 $p95 ms, max $(tail -1 tl.txt) ms"
[ "$p95" -le 200 ] || fail "trace: 5% of the events later than $p95 ms"
exit 0
