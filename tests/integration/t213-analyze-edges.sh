#!/bin/sh
# SPDX-License-Identifier: MIT
# t213-analyze-edges: numbers of a capture at the edges of 64 bits: losses of 2^64-1 and 5
# are "18446744073709551615 or more", never 4 (info, report headers, event-care); a sample
# near 2^64 ns has no wall clock ("out of range"), never a date before the capture (issue 20).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

cat >edge.desc <<EOT
kv hostname edge
kv clock monotonic
kv nr_cpus_online 2
kv nr_cpus_possible 2
event 1 sched:sched_switch $FIX/formats/sched_switch.format
task 300 300 1 app ./app
sync 1000.000000000 1767225600.000000000
sample 1000.000100 0 300 300 1 prev_comm=app prev_pid=300 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
lost 1000.000200 0 18446744073709551615
lost 1000.000300 1 5
sample 18446744073709550000 1 300 300 1 prev_comm=app prev_pid=300 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120
EOT
"$CAPBUILD" edge.desc edge.ppcap || fail "capbuild edge.desc"

# t213.1 info
run_ok info.out "$PP_ANALYZE" edge.ppcap info
grep -q '^lost         18446744073709551615 or more (the sum of the loss records passed 2^64-1) (cpu0=18446744073709551615, cpu1=5)$' info.out ||
	{ cat info.out; fail "info: the loss sum"; }
grep -q '^wall clock   2026-01-01 00:00:00.000100 .. (out of range)$' info.out ||
	{ cat info.out; fail "info: the wall clock of a time near 2^64"; }
grep -q '^lost         4' info.out && fail "info: 2^64-1 and 5 lost is not 4"

# t213.2 a report header (top), event-care, trace's wall-clock column
run_ok ts.out "$PP_ANALYZE" edge.ppcap top -e 'sched:sched_switch//key=prev_pid/'
grep -q '^# 18446744073709551615 or more (the sum saturated) events lost: cpu0=18446744073709551615 cpu1=5$' ts.out ||
	{ cat ts.out; fail "top: the loss header"; }
"$PP_ANALYZE" edge.ppcap event-care >ec.out 2>&1
grep -q 'a sum of losses passed 2^64-1' ec.out && fail "event-care: one CPU's sum did not pass 2^64-1"
grep -q '18446744073709551615' ec.out || { cat ec.out; fail "event-care: the loss of 2^64-1"; }
run_ok tr.out "$PP_ANALYZE" edge.ppcap trace
grep -q '^(wall clock out of range) *app    300 .... \[001\] 18446744073.709550: sched:sched_switch' tr.out ||
	{ cat tr.out; fail "trace: the wall clock of a time near 2^64"; }
grep -q '^19[0-9][0-9]-\|^20[01][0-9]-\|^2025-' tr.out && fail "trace printed a wrapped date"

# t213.3 event-care's per-CPU sum itself saturated (one CPU lost 2^64-1 and 5)
sed 's/^lost 1000.000300 1 5$/lost 1000.000300 0 5/' edge.desc >edge2.desc
"$CAPBUILD" edge2.desc edge2.ppcap || fail "capbuild edge2.desc"
"$PP_ANALYZE" edge2.ppcap event-care >ec2.out 2>&1
grep -q '(a sum of losses passed 2^64-1: LOST says 18446744073709551615, the capture claims more)' ec2.out ||
	{ cat ec2.out; fail "event-care: a saturated sum not said"; }
exit 0
