#!/bin/sh
# SPDX-License-Identifier: MIT
# t109-record-badinput: bad input gives exactly one line on stderr naming the bad part, and
# exit status 2, before anything is recorded: unknown event (with a suggestion for a close
# name), malformed filter, filter on an unknown field, unknown option, bad attribute,
# conflicting options, a --spill-max below 1M, a hardware event without a PMU, kprobes where the kernel has none,
# a missing command.  No capture file is created by any of them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_tracefs

# bad ARGS... EXPECTED-SUBSTRING
bad() {
	want=$1
	shift
	"$PP_RECORD" "$@" -o bad.cap >out.txt 2>err.txt
	rc=$?
	cat err.txt
	assert_eq "exit status of pp-record $*" 2 $rc
	assert_eq "stderr lines of pp-record $*" 1 "$(wc -l <err.txt)"
	grep -q -- "$want" err.txt || fail "pp-record $*: no '$want' in the message"
	grep -q "^pp-record: error: " err.txt || fail "pp-record $*: not an error line"
	[ ! -s out.txt ] || fail "pp-record $*: wrote to stdout"
	[ ! -e bad.cap ] || fail "pp-record $*: created a capture"
}

bad "sched:sched_swich" -e sched:sched_swich --duration 1
bad "did you mean sched:sched_switch" -e sched:sched_swich --duration 1
bad "does not exist" -e no_such_sys:no_such_event --duration 1
bad "prev_pid ==" -e 'sched:sched_switch/prev_pid == /' --duration 1
bad "unknown field 'no_such_field'" -e 'sched:sched_switch/no_such_field == 1/' --duration 1
bad "unclosed" -e 'sched:sched_switch/(prev_pid == 1/' --duration 1
bad "unknown option '--no-such-option'" --no-such-option
bad "unknown attribute" -e 'sched:sched_switch//no_such_attr/' --duration 1
bad "cpu-clock" -e cpu-clok --duration 1
bad "-F and --period" -e cpu-clock -F 99 --period 1000000 --duration 1
bad "power of 2" -m 3 --duration 1
bad "--spill-max 102400: at least 1M" --spill-max 100K -e sched:sched_switch --duration 1
bad "command 'no-such-command-pp' not found" -- no-such-command-pp
bad "--for" --for 'no-such-analyzer -x'
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	bad "hardware PMU" -e cycles --duration 1
fi
if [ ! -e /sys/kernel/tracing/kprobe_events ]; then
	bad "no kprobe support" -e kprobe:do_sys_openat2 --duration 1
fi
no_pp_probes "after bad input"
exit 0
