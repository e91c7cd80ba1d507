#!/bin/sh
# SPDX-License-Identifier: MIT
# t174-oldkernel-tracefs: a per-task recording through tracefs on 4.18's tracefs and system
# calls.
#
# 4.18 has no buffer_percent (5.0), set_event_notrace_pid (5.9) or buffer_subbuf_size_kb
# (6.8) in a tracefs instance, and no system call after rseq (pidfd_open, clone3 ... are
# ENOSYS).  pp-record -e sched:sched_switch,sched:sched_wakeup -- sleeper (per task: the
# instance's pid filter) then wakes on its own period, cannot keep its own switches out
# (says so with -v) and uses the page size, and the sleeper's switches still match its
# nanosleep calls (lib-oldkernel.sh switch_truth).  As 5.10 (which has the first two),
# the same.  No instance is left behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_event sched:sched_switch

for v in 4.18 5.10; do
	"$OLDK" -v $v -- "$PP_RECORD" -v -e sched:sched_switch,sched:sched_wakeup -m 1024 -o $v.pp -- \
		"$PP_LOAD/sleeper" -n 40 -s 10ms >$v.out 2>$v.err || { cat $v.err; fail "$v: pp-record"; }
	grep -q "tracepoints read from tracefs" $v.err || { cat $v.err; fail "$v: not through tracefs"; }
	case $v in
	4.18) for f in buffer_percent set_event_notrace_pid buffer_subbuf_size_kb; do
			assert_ge "$v: $f refused" 1 "$(refusals $v $v.err "open .*/$f: ENOENT")"
		done
		grep -q "cannot leave pp-record's own events out (before Linux 5.9)" $v.err ||
			{ cat $v.err; fail "$v: set_event_notrace_pid's absence not said"; };;
	5.10) assert_eq "$v: buffer_percent refused" 0 "$(refusals $v $v.err "buffer_percent")"
		assert_ge "$v: buffer_subbuf_size_kb refused" 1 \
			"$(refusals $v $v.err "buffer_subbuf_size_kb: ENOENT")";;
	esac
	grep -q "error" $v.err && { cat $v.err; fail "$v: an error"; }
	switch_truth "$v" $v.pp $v.err
done
assert_eq "tracefs instances left by a pp-record that is gone" 0 "$(leaked_instances)"
exit 0
