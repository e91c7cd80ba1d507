#!/bin/sh
# SPDX-License-Identifier: MIT
# t304-top-live: top on a recorded load equals the load's own counts: getppid() per
# thread (default key: the thread), per process (key=_pid), and with a top-by sum
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event raw_syscalls:sys_enter

"$PP_RECORD" -e 'raw_syscalls:sys_enter/id==110/,raw_syscalls:sys_exit/id==110/' -m 1024 -o gt.ppcap -- \
	"$PP_LOAD/syscalls" -t 3 -n 4000 -m getppid >rec.out 2>&1 || { cat rec.out; fail "pp-record"; }
load=$(grep '^LOAD syscalls' rec.out) || { cat rec.out; fail "no LOAD line"; }
pid=$(load_field "$load" pid)
tids=$(load_field "$load" tids)
"$PP_ANALYZE" gt.ppcap event-care >care.out || { cat care.out; skip "the capture lost events (busy machine)"; }

# t304.1 rows per thread: each thread made 4000 calls
run_ok top.out "$PP_ANALYZE" gt.ppcap top -e raw_syscalls:sys_enter
for tid in $(echo "$tids" | tr ',' ' '); do
	n=$(awk -v t="$tid" '$1 == t { print $2 }' top.out)
	assert_eq "sys_enter of thread $tid" 4000 "$n"
done

# t304.2 keyed by process, two columns; top-by sums a field (id = 110 per call)
run_ok pid.out "$PP_ANALYZE" gt.ppcap top \
	-e 'raw_syscalls:sys_enter//key=_pid/top-by=id/alias=ids/,raw_syscalls:sys_exit//key=_pid/'
row=$(awk -v p="$pid" '$1 == p' pid.out)
assert_eq "row of pid $pid" "$pid 1320000 12000" "$(echo $row)"
head -2 pid.out | tail -1 | grep -q '^    _PID          IDS     SYS_EXIT $' || { cat pid.out; fail "titles"; }

# t304.3 -p keeps the process, --only-comm folds the threads into the name
run_ok comm.out "$PP_ANALYZE" gt.ppcap top -e 'raw_syscalls:sys_enter//key=common_pid/comm=comm_get(_pid)/' \
	--only-comm -p "$pid"
assert_eq "--only-comm row" "12000 syscalls" "$(tail -1 comm.out | tr -s ' ' | sed 's/^ //')"
exit 0
