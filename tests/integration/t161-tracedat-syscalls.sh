#!/bin/sh
# SPDX-License-Identifier: MIT
# t161-tracedat-syscalls: syscalls on a trace.dat's capture counts exactly the K getppid and
# K read calls each worker of tests/load/syscalls made, from raw_syscalls events recorded by
# trace-cmd record; the per-syscall event syscalls:sys_enter_getppid counts the same K.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-tracedat.sh"
need_event raw_syscalls:sys_enter
need_trace_cmd
K=2000

tc_record -b 8192 -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-e syscalls:sys_enter_getppid -o sc.dat "$PP_LOAD/syscalls" -t 2 -n $K -m both
[ -n "$LOAD" ] || { cat tc.err; fail "no LOAD line"; }
td_capture sc.dat sc.ppcap
[ "$(td_fact sc.ppcap lost)" = 0 ] || skip "trace-cmd lost events (busy machine): $(td_fact sc.ppcap lost)"
nr_ppid=$(load_field "$LOAD" getppid_nr)
nr_read=$(load_field "$LOAD" read_nr)
tids=$(load_field "$LOAD" tids)

# t161.1 each worker: exactly K of each, named from the syscall table
run_ok sc.out "$PP_ANALYZE" sc.dat syscalls --perins
for tid in $(echo "$tids" | tr , ' '); do
	row() { awk -v t="$tid" -v n="$1" '$1 == t && $3 ~ ("\\(" n "\\)$") { print; exit }' sc.out; }
	r=$(row "$nr_ppid")
	[ -n "$r" ] || { cat sc.out; fail "no getppid row for thread $tid"; }
	case "$r" in *" getppid("*) ;; *) fail "row not named from the syscall table: $r" ;; esac
	assert_eq "getppid calls of $tid" $K "$(echo "$r" | awk '{print $4}')"
	r=$(row "$nr_read")
	[ -n "$r" ] || { cat sc.out; fail "no read row for thread $tid"; }
	assert_eq "read calls of $tid" $K "$(echo "$r" | awk '{print $4}')"
done

# t161.2 the per-syscall tracepoint: K per worker, counted from its samples
for tid in $(echo "$tids" | tr , ' '); do
	n=$("$PP_ANALYZE" sc.dat trace -e syscalls:sys_enter_getppid -t "$tid" | wc -l)
	assert_eq "sys_enter_getppid events of $tid" $K "$n"
done
exit 0
