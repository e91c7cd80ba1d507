#!/bin/sh
# SPDX-License-Identifier: MIT
# t302-trace-live: trace on captures recorded here: the compiled print formats print
# exactly what libtraceevent prints for every event of a busy system, and trace
# shows exactly the syscalls a load made (ground truth from the load itself)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event raw_syscalls:sys_enter
need_event sched:sched_switch

# t302.1 a real capture of many tracepoint kinds: fast path == libtraceevent
"$PP_RECORD" -e 'sched:*,irq:*,timer:*,raw_syscalls:*,kmem:*,workqueue:*,signal:*,task:*' -m 1024 \
	-o many.ppcap -- sh -c "$PP_LOAD/ctxsw -n 2000; $PP_LOAD/syscalls -n 2000 -m both; \
	$PP_LOAD/mallocloop -n 20000; $PP_LOAD/sleeper -n 5 -s 1ms; $PP_LOAD/pagetouch -n 500" \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record failed"; }
run_ok fast.out "$PP_ANALYZE" many.ppcap trace
run_ok generic.out "$PP_ANALYZE" many.ppcap trace --generic-print
n=$(wc -l <fast.out)
assert_ge "trace lines" 1000 "$n"
check_output generic.out fast.out
# the same through the JSON writer
run_ok fast.json "$PP_ANALYZE" many.ppcap trace --format json -e 'sched:*,raw_syscalls:*'
run_ok generic.json "$PP_ANALYZE" many.ppcap trace --format json -e 'sched:*,raw_syscalls:*' --generic-print
check_output generic.json fast.json

# t302.2 ground truth: every getppid() of a 2-thread load, per thread
"$PP_RECORD" -e 'raw_syscalls:sys_enter/id==110/' -m 1024 -o gt.ppcap -- \
	"$PP_LOAD/syscalls" -t 2 -n 5000 -m getppid >rec.out 2>&1 || { cat rec.out; fail "pp-record"; }
load=$(grep '^LOAD syscalls' rec.out) || { cat rec.out; fail "no LOAD line"; }
tids=$(load_field "$load" tids)
"$PP_ANALYZE" gt.ppcap event-care >care.out || { cat care.out; skip "the capture lost events (busy machine)"; }
run_ok trace.out "$PP_ANALYZE" gt.ppcap trace -e raw_syscalls:sys_enter
for tid in $(echo "$tids" | tr ',' ' '); do
	n=$(awk -v t="$tid" '$4 == t && /raw_syscalls:sys_enter: NR 110 /' trace.out | wc -l)
	assert_eq "getppid calls of thread $tid" 5000 "$n"
done
# -N stops after N events, -t keeps one thread
run_ok n.out "$PP_ANALYZE" gt.ppcap trace -N 7
assert_eq "trace -N 7 lines" 7 "$(wc -l <n.out)"
first=$(echo "$tids" | cut -d, -f1)
run_ok t.out "$PP_ANALYZE" gt.ppcap trace -t "$first"
assert_eq "trace -t $first lines" 5000 "$(wc -l <t.out)"
exit 0
