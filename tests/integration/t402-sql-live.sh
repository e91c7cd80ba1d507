#!/bin/sh
# SPDX-License-Identifier: MIT
# t402-sql-live: sql on a real capture of a known load (ctxsw, two pinned threads):
# counts per thread equal top's and trace's, a wakeup/switch join on pid runs and finds
# the load, the --output2 database read by the sqlite3 CLI gives the same rows, and
# ksymbol(), symbolic() and syscall() return names; constant _time ranges skip segments.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
need_event irq:softirq_entry
need_event timer:hrtimer_start

N=20000
"$PP_RECORD" -a --kallsyms=yes -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,irq:softirq_entry,timer:hrtimer_start \
	-o cap.ppcap -- "$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err
rc=$?
assert_eq "pp-record exit status" 0 $rc
tids=$(grep '^LOAD ' rec.err | tr ' ' '\n' | sed -n 's/^tids=//p')
main=${tids%,*}
peer=${tids#*,}
[ -n "$main" ] && [ -n "$peer" ] || { cat rec.err; fail "no LOAD line from ctxsw"; }

sq() {	# QUERY: the rows as CSV without the header
	"$PP_ANALYZE" cap.ppcap sql -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,irq:softirq_entry,timer:hrtimer_start \
		--format csv --query "$1" | tail -n +2
}

# t402.1 switches of the load's threads: sql = top = trace
sql_n=$(sq "select count(*) from sched_switch where _tid in ($main, $peer)")
lost=$("$PP_ANALYZE" cap.ppcap info --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["lost"])')
if [ "$lost" = 0 ]; then
	# each round trip switches each thread out once, but for a trip or two at the ends
	assert_ge "sched_switch of the load" $((2 * N - 10)) "$sql_n"
else	# a loaded machine: the counts below must still agree
	echo "t402.1: $lost events lost while recording: not checking >= $((2 * N)) switches"
	assert_ge "sched_switch of the load" 1 "$sql_n"
fi
top_csv=$("$PP_ANALYZE" cap.ppcap top -e sched:sched_switch -t "$main,$peer" --only-comm --format csv)
top_all=$(printf '%s\n' "$top_csv" | awk -F, 'NR > 1 { n += $1 } END { print n + 0 }')
assert_eq "sql count = top count" "$sql_n" "$top_all"
trace_n=$("$PP_ANALYZE" cap.ppcap trace -e sched:sched_switch -t "$main,$peer" | grep -c 'sched:sched_switch:')
assert_eq "sql count = trace count" "$sql_n" "$trace_n"
# per comm: sched_switch's prev_comm is the comm at the event, as top's rows (when no
# event was lost: a lost COMM record leaves top, which names a thread from the side-band,
# with another name than the event's prev_comm)
if [ "$lost" = 0 ]; then
	top_ctxsw=$(printf '%s\n' "$top_csv" | awk -F, '$NF == "ctxsw" { print $1 }')
	sql_ctxsw=$(sq "select count(*) from sched_switch where _tid in ($main, $peer) and prev_comm = 'ctxsw'")
	assert_eq "per comm: sql = top" "$top_ctxsw" "$sql_ctxsw"
	sq "select prev_comm, count(*) from sched_switch where _tid in ($main, $peer) group by 1 order by 1" >sqlc.csv
	printf '%s\n' "$top_csv" | awk -F, 'NR > 1 { print $2 "," $1 }' | LC_ALL=C sort >topc.csv
	check_output topc.csv sqlc.csv
else
	echo "t402.1: per-comm counts not compared with top's: $lost events lost"
fi

# t402.2 a join of sched_wakeup and sched_switch on pid (samples/sql/wakeup-latency.sql)
sq "$(cat "$SAMPLES/sql/wakeup-latency.sql")" >join.csv
grep -q '^ctxsw,' join.csv || { cat join.csv; fail "the join did not find the load"; }
wakeups=$(awk -F, '$1 == "ctxsw" { print $2 }' join.csv)
assert_ge "wakeups of the load" $((N / 2)) "$wakeups"

# t402.3 --output2: the sqlite3 CLI reads the same rows
if command -v sqlite3 >/dev/null 2>&1; then
	q="select _tid, count(*), min(_time), max(_time) from sched_switch where _tid in ($main, $peer) group by 1 order by 1"
	"$PP_ANALYZE" cap.ppcap sql -e sched:sched_switch --format csv --query "$q" | tail -n +2 >mem.csv
	"$PP_ANALYZE" cap.ppcap sql -e sched:sched_switch,sched:sched_wakeup --output2 out.db ||
		fail "--output2"
	sqlite3 -csv out.db "$q" | tr -d '\r' >cli.csv
	check_output mem.csv cli.csv
	assert_eq "rows in the file" "$(sq 'select count(*) from sched_switch')" \
		"$(sqlite3 out.db 'select count(*) from sched_switch')"
else
	echo "t402.3 skipped: no sqlite3 CLI"
fi

# t402.5 constant _time ranges skip segments through the capture's time index (-v says so
# and reads fewer segments) and give the rows of the same query on the whole replay (the
# unary + hides the term from the virtual table: every segment is read)
t0=$(sq "select min(_time) from sched_switch")
t1=$(sq "select max(_time) from sched_switch")
[ -n "$t0" ] && [ -n "$t1" ] || fail "no sched_switch times"
for range in "_time >= $((t0 + (t1 - t0) * 3 / 4))" \
	"_time between $((t0 + (t1 - t0) / 3)) and $((t0 + (t1 - t0) / 2))" \
	"_time < $((t0 + (t1 - t0) / 4))"; do
	q="select count(*), sum(prev_pid), min(_time), max(_time) from sched_switch where $range;
select count(*), sum(pid), max(_time) from sched_wakeup where $range"
	"$PP_ANALYZE" cap.ppcap sql -v --format csv --query "$q" >fast.csv 2>fast.err ||
		{ cat fast.err; fail "sql on $range"; }
	"$PP_ANALYZE" cap.ppcap sql -v --format csv --query "$(printf '%s' "$q" | sed 's/_time /+_time /g')" \
		>full.csv 2>full.err || { cat full.err; fail "sql on +$range"; }
	check_output full.csv fast.csv
	grep -q 'the time index skips the rest' fast.err || { cat fast.err; fail "$range: no skip"; }
	! grep -q 'the time index' full.err || { cat full.err; fail "+_time: skipped"; }
	nf=$(sed -n 's/^sql: \([0-9]*\) segments of the capture read$/\1/p' fast.err)
	na=$(sed -n 's/^sql: \([0-9]*\) segments of the capture read$/\1/p' full.err)
	[ -n "$nf" ] && [ -n "$na" ] && [ "$nf" -lt "$na" ] ||
		{ cat fast.err full.err; fail "$range: $nf segments read, not fewer than $na"; }
	echo "t402.5 $range: $nf of $na segments read"
done
# not when a query reads the side-band (comm() names need every COMM record)
"$PP_ANALYZE" cap.ppcap sql -v --query "select comm(_pid), count(*) from sched_switch
	where _time >= $((t0 + (t1 - t0) * 3 / 4)) group by 1" >/dev/null 2>side.err || fail "comm()"
! grep -q 'the time index' side.err || { cat side.err; fail "comm(): skipped segments"; }

# t402.4 names from the capture: syscalls of the load, softirqs, timer functions
sq "select distinct syscall(id) from sys_enter where _tid = $main" >sys.csv
grep -qx write sys.csv && grep -qx read sys.csv || { cat sys.csv; fail "syscall() names"; }
sq "select symbolic('softirq_entry.vec', vec) from softirq_entry" | sort -u >softirq.csv
if [ -s softirq.csv ]; then
	grep -qvE '^(HI|TIMER|NET_TX|NET_RX|BLOCK|IRQ_POLL|TASKLET|SCHED|HRTIMER|RCU)$' softirq.csv &&
		{ cat softirq.csv; fail "symbolic() names"; }
else
	echo "t402.4 symbolic() not checked: no softirq during the recording"
fi
named=$(sq "select count(*) from hrtimer_start where ksymbol(function) != '??'")
all=$(sq "select count(*) from hrtimer_start")
assert_ge "hrtimer_start events" 1 "$all"
assert_eq "ksymbol() names every timer function" "$all" "$named"
sq "select ksymbol(function) from hrtimer_start" | grep -q 'tick_\|hrtimer_\|_timer' ||
	fail "ksymbol() gives no timer function name"
exit 0
