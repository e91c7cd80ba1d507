#!/bin/sh
# SPDX-License-Identifier: MIT
# t402-sql-live: sql on a real capture of a known load (ctxsw, two pinned threads):
# counts per thread equal top's and trace's, a wakeup/switch join on pid runs and finds
# the load, the --output2 database read by the sqlite3 CLI gives the same rows, and
# ksymbol(), symbolic() and syscall() return names.
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
assert_ge "sched_switch of the load" $((2 * N)) "$sql_n"
top_csv=$("$PP_ANALYZE" cap.ppcap top -e sched:sched_switch -t "$main,$peer" --only-comm --format csv)
top_all=$(printf '%s\n' "$top_csv" | awk -F, 'NR > 1 { n += $1 } END { print n + 0 }')
assert_eq "sql count = top count" "$sql_n" "$top_all"
trace_n=$("$PP_ANALYZE" cap.ppcap trace -e sched:sched_switch -t "$main,$peer" | grep -c 'sched:sched_switch:')
assert_eq "sql count = trace count" "$sql_n" "$trace_n"
# per comm: sched_switch's prev_comm is the comm at the event, as top's rows
top_ctxsw=$(printf '%s\n' "$top_csv" | awk -F, '$NF == "ctxsw" { print $1 }')
sql_ctxsw=$(sq "select count(*) from sched_switch where _tid in ($main, $peer) and prev_comm = 'ctxsw'")
assert_eq "per comm: sql = top" "$top_ctxsw" "$sql_ctxsw"
sq "select prev_comm, count(*) from sched_switch where _tid in ($main, $peer) group by 1 order by 1" >sqlc.csv
printf '%s\n' "$top_csv" | awk -F, 'NR > 1 { print $2 "," $1 }' | LC_ALL=C sort >topc.csv
check_output topc.csv sqlc.csv

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

# t402.4 names from the capture: syscalls of the load, softirqs, timer functions
sq "select distinct syscall(id) from sys_enter where _tid = $main" >sys.csv
grep -qx write sys.csv && grep -qx read sys.csv || { cat sys.csv; fail "syscall() names"; }
sq "select symbolic('softirq_entry.vec', vec) from softirq_entry" | sort -u >softirq.csv
[ -s softirq.csv ] || skip "no softirq during the recording"
grep -qvE '^(HI|TIMER|NET_TX|NET_RX|BLOCK|IRQ_POLL|TASKLET|SCHED|HRTIMER|RCU)$' softirq.csv &&
	{ cat softirq.csv; fail "symbolic() names"; }
named=$(sq "select count(*) from hrtimer_start where ksymbol(function) != '??'")
all=$(sq "select count(*) from hrtimer_start")
assert_ge "hrtimer_start events" 1 "$all"
assert_eq "ksymbol() names every timer function" "$all" "$named"
sq "select ksymbol(function) from hrtimer_start" | grep -q 'tick_\|hrtimer_\|_timer' ||
	fail "ksymbol() gives no timer function name"
exit 0
