#!/bin/sh
# SPDX-License-Identifier: MIT
# t301-trace-golden: trace on fixed captures: print formats, exec=, -N, -C, --time,
# stacks, flame graphs, json/csv; compiled formats equal libtraceevent's output
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
build_fixture print-mix

# t301.1 every print format of print-mix, and the same through libtraceevent alone
golden trace-print-mix "$PP_ANALYZE" print-mix.ppcap trace || fail "trace failed"
"$PP_ANALYZE" print-mix.ppcap trace --generic-print >generic.out || fail "generic trace failed"
check_output golden-trace-print-mix.out generic.out

# t301.2 stacks (-g), exec=, -N, filters
golden trace-stacks "$PP_ANALYZE" sched-basic.ppcap trace -g || fail "trace -g"
golden trace-exec "$PP_ANALYZE" sched-basic.ppcap trace \
	-e 'sched:sched_wakeup//exec=(printf("  woke %s/%d prio %d\n", comm, pid, prio))/,sched:sched_switch/prev_state==2/stack/' ||
	fail "trace exec"
golden trace-N "$PP_ANALYZE" sched-basic.ppcap trace -N 2 || fail "trace -N"
golden trace-cpu-time "$PP_ANALYZE" sched-basic.ppcap trace -C 1 --time +0.0001,+0.004 || fail "trace -C --time"

# t301.3 flame graphs: folded per interval to stdout, folded file, SVG file
golden trace-flame-iv "$PP_ANALYZE" sched-basic.ppcap trace -g --flame-graph - -i 2 -e sched:sched_switch ||
	fail "trace flame -i"
"$PP_ANALYZE" sched-basic.ppcap trace -g --flame-graph sw.folded -e sched:sched_switch >/dev/null ||
	fail "trace flame file"
echo "worker;entry_SYSCALL_64;do_nanosleep;schedule 1" >expect
check_output expect sw.folded
"$PP_ANALYZE" sched-basic.ppcap trace -g --flame-graph sw.svg -e sched:sched_switch >/dev/null ||
	fail "trace flame svg"
grep -q '<svg' sw.svg || fail "no SVG written"

# t301.4 machine-readable output
golden trace-json "$PP_ANALYZE" sched-basic.ppcap trace -e irq:irq_handler_entry,sched:sched_wakeup --format json ||
	fail "trace json"
golden trace-csv "$PP_ANALYZE" sched-basic.ppcap trace -e irq:irq_handler_entry --format csv || fail "trace csv"
exit 0
