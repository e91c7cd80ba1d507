#!/bin/sh
# SPDX-License-Identifier: MIT
# t111-record-exiting-threads: the last sched_switch of an exiting thread (prev_state=X)
# comes from the kernel with pid/tid -1, because the thread is already unhashed.
# pp-analyze takes the thread from the tracepoint's common_pid and its process from the
# task table: every such event is named after its thread, nothing prints as <...>.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

"$PP_RECORD" -a -e sched:sched_switch -o exit.cap -- sh -c \
	"for i in 1 2 3 4 5 6 7 8 9 10; do \"$PP_LOAD/syscalls\" -t 4 -n 10 2>>load.err; done" \
	2>rec.err || { cat rec.err; fail "pp-record"; }
"$PP_ANALYZE" exit.cap dump >dump.txt || fail "pp-analyze dump"
unhashed=$(grep -c "SAMPLE .*pid=4294967295 tid=4294967295" dump.txt)
echo "samples the kernel gave pid/tid -1: $unhashed"
"$PP_ANALYZE" exit.cap trace >trace.txt || fail "pp-analyze trace"
# 40 worker threads exited; each one's last switch says prev_state=X
x=$(grep -c "prev_comm=syscalls .*prev_state=X " trace.txt)
assert_ge "last switches of exiting syscalls threads" 30 "$x"
if grep -q '<\.\.\.>' trace.txt; then
	grep '<\.\.\.>' trace.txt | head -5
	fail "events of unnamed tasks"
fi
# the thread named on each of those lines is the one switching out
bad=$(awk '/prev_state=X / { for (i = 1; i <= NF; i++) if ($i ~ /^prev_pid=/) p = substr($i, 10);
	if ($4 != p) print }' trace.txt | head -5)
[ -z "$bad" ] || { echo "$bad"; fail "an exiting thread's switch is attributed to another thread"; }
[ "$unhashed" -gt 0 ] || echo "note: this kernel gave no pid/tid -1 samples: the recovery was not exercised"
exit 0
