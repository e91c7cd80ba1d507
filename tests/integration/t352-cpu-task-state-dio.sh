#!/bin/sh
# SPDX-License-Identifier: MIT
# t352-cpu-task-state-dio: a task doing O_DIRECT reads spends time in D.
# Each direct read waits for its block request in TASK_UNINTERRUPTIBLE, so there are
# D stays, most reads make one (a request served before the task sleeps makes none).
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

"$PP_LOAD/dio" -f "$T/dio.dat" -n 1 >/dev/null 2>&1
[ $? = 3 ] && skip "the filesystem of $T has no O_DIRECT"
idle_cpu
"$PP_RECORD" --for 'task-state --filter dio' -a -m 1024 -o dio.pp -- \
	taskset -c "$IDLE_CPU" "$PP_LOAD/dio" -f "$T/dio.dat" -n 200 >rec.out 2>rec.err || { cat rec.err; fail "pp-record"; }
tid=$(grep '^LOAD dio' rec.err | tr ' ' '\n' | sed -n 's/^tids=//p')
[ -n "$tid" ] || fail "no LOAD line"
"$PP_ANALYZE" dio.pp task-state --perins -t "$tid" >ts.txt || fail "task-state"
row=$(awk -v t="$tid" '$1 == t && $3 == "D"' ts.txt)
[ -n "$row" ] || { cat ts.txt; fail "no D row for dio"; }
calls=$(echo "$row" | awk '{ print $4 }')
total=$(echo "$row" | awk '{ print int($5) }')
# A D stay is measured from the switch-out in D to the wakeup.  The kernel drops a
# tracepoint silently now and then (its per-CPU recursion guard held by another perf
# user; on some VMs every event of a CPU's idle task): count what the capture holds.
"$PP_ANALYZE" dio.pp trace -e sched:sched_switch,sched:sched_wakeup >tr.txt || fail "trace"
dsw=$(grep -c "prev_pid=$tid prev_prio=[0-9]* prev_state=D " tr.txt)
wk=$(grep -c "sched_wakeup: comm=dio pid=$tid " tr.txt)
[ "$dsw" -ge 100 ] && [ "$wk" -ge 100 ] ||
	skip "the kernel recorded $dsw switch-outs in D and $wk wakeups of 200 direct reads (events dropped)"
assert_ge "D stays of 200 direct reads" 100 "$calls"
assert_between "D stays vs switch-outs in D" 1 "$dsw" "$calls"
assert_ge "D time (us)" 1 "$total"

# -D alone: the same D stays, nothing else
"$PP_ANALYZE" dio.pp task-state --perins -t "$tid" -D >d.txt || fail "task-state -D"
assert_eq "-D rows" "D" "$(awk -v t="$tid" '$1 == t { print $3 }' d.txt | sort -u | tr -d '\n')"
assert_eq "-D calls" "$calls" "$(awk -v t="$tid" '$1 == t { print $4 }' d.txt)"
exit 0
