#!/bin/sh
# SPDX-License-Identifier: MIT
# t171-oldkernel-perf: pp-record on the perf_event_open() of older kernels (docs/kernels.md).
#
# Run as 4.18, 5.4, 5.10, 5.15 and 6.1 answer it (tests/tools/oldkernel: EINVAL for an
# attr bit or read_format flag newer than the kernel, ENOSYS for newer system calls),
# pp-record --for task-state records a sleeper whose S stays match its nanosleep calls
# (lib-oldkernel.sh sleep_truth).  Before 6.0 the kernel refuses PERF_FORMAT_LOST,
# before 5.12 the side band's build_id: each refusal is seen, and the retry without it
# records the same truth.  4.18 again with --no-ftrace: every tracepoint through perf.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_event sched:sched_switch
# unpinned: on a busy machine no CPU is idle long enough for idle_cpu, and the sleeper's
# stays are measured wherever it wakes up

for v in 4.18 5.4 5.10 5.15 6.1; do
	"$OLDK" -v $v -- "$PP_RECORD" --for 'task-state --filter sleeper' -a -m 1024 -o $v.pp -- \
		"$PP_LOAD/sleeper" -n 40 -s 10ms >$v.out 2>$v.err ||
		{ cat $v.err; fail "$v: pp-record"; }
	lost=$(refusals $v $v.err "EINVAL (.*read_format 0x1[0-9a-f]*,")
	bid=$(refusals $v $v.err "EINVAL (.*read_format 0x0,")
	case $v in
	6.1) assert_eq "$v: refusals" 0 "$(refusals $v $v.err "perf_event_open")";;
	5.15) assert_ge "$v: PERF_FORMAT_LOST refused" 1 "$lost"
		assert_eq "$v: build_id refused" 0 "$bid";;
	*) assert_ge "$v: PERF_FORMAT_LOST refused" 1 "$lost"
		assert_ge "$v: build_id refused" 1 "$bid";;
	esac
	grep -q "error\|warning" $v.err && { cat $v.err; fail "$v: an error or a warning"; }
	sleep_truth "$v" $v.pp $v.err
done

# 4.18, every tracepoint through perf rings (PERF_FORMAT_LOST refused on each)
"$OLDK" -v 4.18 -- "$PP_RECORD" --no-ftrace --for 'task-state --filter sleeper' -a -m 1024 \
	-o perf.pp -- "$PP_LOAD/sleeper" -n 40 -s 10ms >perf.out 2>perf.err ||
	{ cat perf.err; fail "4.18 --no-ftrace: pp-record"; }
assert_ge "4.18 --no-ftrace: tracepoints' PERF_FORMAT_LOST refused" 1 \
	"$(refusals 4.18 perf.err "EINVAL (sample_type 0x[0-9a-f]*, read_format 0x1[0-9a-f]*,")"
sleep_truth "4.18 --no-ftrace" perf.pp perf.err
"$PP_ANALYZE" perf.pp info >perf.info || fail "info"
grep -q "^integrity *ok" perf.info || { cat perf.info; fail "4.18 --no-ftrace: integrity"; }
exit 0
