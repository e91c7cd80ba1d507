#!/bin/sh
# SPDX-License-Identifier: MIT
# t330-lat-syscalls: syscalls counts exactly the K nanosleep(1ms) and K getppid()
# calls of a thread, nanosleep's p50 is about 1 ms and getppid's far below.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event raw_syscalls:sys_enter

K=300
# only the workload's own events: its exit_group is closed by the task's exit record
record_with_load sleeper -m 1024 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-o sc.ppcap -- "$PP_LOAD/sleeper" -m mixed -n $K -s 1ms
tid=$(load_field "$LOAD" tids)
pid=$(load_field "$LOAD" pid)
nr_sleep=$(load_field "$LOAD" nanosleep_nr)
nr_ppid=$(load_field "$LOAD" getppid_nr)
calls=$(load_field "$LOAD" nanosleep)
assert_eq "getppid calls made" $K "$(load_field "$LOAD" getppid)"
grep -q ' lost: 0;' rec.err || skip "the recording lost events (busy machine): $(grep lost: rec.err)"

# t330.1 per-thread rows: exactly K of each for the sleeper's thread
run_ok sc.out "$PP_ANALYZE" sc.ppcap syscalls --perins
row() { awk -v t="$tid" -v n="$1" '$1 == t && $3 ~ ("\\(" n "\\)$") { print; exit }' sc.out; }
sleep_row=$(row "$nr_sleep")
ppid_row=$(row "$nr_ppid")
[ -n "$sleep_row" ] || { cat sc.out; fail "no nanosleep row for thread $tid"; }
[ -n "$ppid_row" ] || { cat sc.out; fail "no getppid row for thread $tid"; }
assert_eq "nanosleep calls of $tid" "$calls" "$(echo "$sleep_row" | awk '{print $4}')"
assert_eq "getppid calls of $tid" $K "$(echo "$ppid_row" | awk '{print $4}')"
assert_eq "nanosleep errors" 0 "$(echo "$sleep_row" | awk '{print $9}')"
case "$sleep_row" in nanosleep*|*" nanosleep("*) ;; *) fail "row not named from the syscall table: $sleep_row" ;; esac

# t330.2 without --perins the thread's calls are part of the totals
run_ok all.out "$PP_ANALYZE" sc.ppcap syscalls -p "$pid"
assert_eq "nanosleep calls of process $pid" "$calls" \
	"$(awk -v n="$nr_sleep" '$1 ~ ("\\(" n "\\)$") { print $2 }' all.out)"

# t330.3 latencies: nanosleep p50 about 1 ms, getppid far below (multi-trace on one id)
lat() {
	"$PP_ANALYZE" sc.ppcap multi-trace -e "raw_syscalls:sys_enter/id==$1/" \
		-e "raw_syscalls:sys_exit/id==$1/" -k common_pid -t "$tid" >lat.out 2>&1 ||
		{ cat lat.out; fail "multi-trace on syscall $1"; }
	awk '$2 == "=>" && $1 != "start" { print $4 " " $7; exit }' lat.out
}
set -- $(lat "$nr_sleep")
assert_eq "nanosleep pairs" "$calls" "$1"
assert_between "nanosleep p50 (us)" 1000 1600 "$2"
set -- $(lat "$nr_ppid")
assert_eq "getppid pairs" $K "$1"
assert_between "getppid p50 (us)" 0 100 "$2"

# t330.4 JSON: the same counts, numbers unquoted
run_ok sc.json "$PP_ANALYZE" sc.ppcap syscalls --perins -t "$tid" --format json
grep -q "\"key\":$tid,\"comm\":\"sleeper\",\"syscall\":\"nanosleep\",\"id\":$nr_sleep,\"calls\":$calls," sc.json ||
	{ cat sc.json; fail "JSON row for nanosleep"; }
exit 0
