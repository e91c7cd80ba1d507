#!/bin/sh
# SPDX-License-Identifier: MIT
# t760-bench-spliceread: the bench's minimal reader (tests/bench/spliceread.c) keeps every
# event of a pinned context-switch storm and never leaves tracefs state behind - not after a
# normal end, nor after SIGTERM, SIGINT or SIGHUP, a reader thread that fails, a command
# that cannot start or an event that does not exist.
#
# Ground truth: ctxsw -n N -c 0 switches each of its two threads out at least once per round
# trip, so the instance's rings read at least 2N events; none lost (the reader keeps up).
# A reader blocks in splice() until its ring is buffer_percent full: during a 1 s sleep
# almost no splice() call returns empty-handed.
# "Left behind" is the instance directory instances/pp-bench-splice-PID of that run.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event sched:sched_wakeup
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC) to build tests/bench/spliceread.c"
"$CC" -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -pthread -o spliceread \
	"$TOP/tests/bench/spliceread.c" 2>build.err || { cat build.err; fail "spliceread does not build"; }
[ -s build.err ] && { cat build.err; fail "spliceread builds with warnings"; }
INST=/sys/kernel/tracing/instances
EV="sched:sched_switch sched:sched_wakeup"

# run_bg NAME CMD...: spliceread in the background; its pid in $pid
run_bg() {
	name=$1
	shift
	EVENTS=$EV ./spliceread "$@" >"$name.out" 2>"$name.err" &
	pid=$!
}

# gone NAME: the run's instance is not there
gone() {
	[ ! -e "$INST/pp-bench-splice-$pid" ] || fail "$1: $INST/pp-bench-splice-$pid left behind"
}

# wait_instance NAME: until the run's instance exists and the command has started
wait_instance() {
	i=0
	while [ ! -s "$1.child" ]; do
		i=$((i + 1))
		[ $i -lt 500 ] || fail "$1: the command did not start"
		sleep 0.01
	done
	[ -d "$INST/pp-bench-splice-$pid" ] || fail "$1: no instance while the command runs"
}

field() { sed -n "s/^SPLICEREAD .*[ ]$1=\([0-9]*\).*/\1/p" "$2"; }

# t760.1: every event of the storm through the pipes, the instance removed, exit status kept
N=5000
run_bg normal "$PP_LOAD/ctxsw" -n $N -c 0
wait $pid
assert_eq "t760.1 exit status" 0 $?
gone t760.1
grep -q '^SPLICEREAD ' normal.err || { cat normal.err; fail "t760.1: no SPLICEREAD line"; }
assert_ge "t760.1 events" $((2 * N)) "$(field events normal.err)"
assert_eq "t760.1 lost" 0 "$(field lost normal.err)"
pages=$(field pages normal.err)
partial=$(field partial_pages normal.err)
assert_ge "t760.1 pages spliced" 1 "$pages"
sub=$(($(cat /sys/kernel/tracing/buffer_subbuf_size_kb 2>/dev/null || echo 4) * 1024))
assert_eq "t760.1 bytes" $(((pages + partial) * sub)) "$(field bytes normal.err)"
run_bg status sh -c 'exit 3'
wait $pid
assert_eq "t760.1 the command's exit status" 3 $?
gone t760.1b

# t760.1c: the readers sleep in splice() while nothing comes: a reader whose descriptor was
# closed elsewhere (the command's exec, had it inherited it) gets 0 back at once, forever
run_bg idle sleep 1
wait $pid
assert_eq "t760.1c exit status" 0 $?
gone t760.1c
empty=$(field empty idle.err)
[ -n "$empty" ] && [ "$empty" -le 100 ] ||
	{ cat idle.err; fail "t760.1c: $empty empty splice() calls in 1 s: the readers spin"; }

# t760.2-3: SIGTERM, SIGINT and SIGHUP: passed on to the command, which is reaped; 128+N
for sig in TERM INT HUP; do
	case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
	run_bg "sig$sig" sh -c "echo \$\$ >sig$sig.child; exec sleep 60"
	wait_instance "sig$sig"
	kill -s "$sig" $pid
	wait $pid
	assert_eq "t760 SIG$sig exit status" "$want" $?
	gone "t760 SIG$sig"
	kill -0 "$(cat "sig$sig.child")" 2>/dev/null && fail "t760 SIG$sig: the command still runs"
done

# t760.4: a reader thread that fails ends the run: the command gets SIGTERM, status 1
SPLICEREAD_FAIL_CPU=0 run_bg fail sh -c 'echo $$ >fail.child; exec sleep 60'
wait $pid
assert_eq "t760.4 exit status" 1 $?
gone t760.4
grep -q 'cpu0: SPLICEREAD_FAIL_CPU' fail.err || { cat fail.err; fail "t760.4: no message"; }
kill -0 "$(cat fail.child)" 2>/dev/null && fail "t760.4: the command still runs"

# t760.5: a command that cannot start, an event that does not exist, no events
run_bg noexec ./no-such-command
wait $pid
assert_eq "t760.5 exit status of a missing command" 127 $?
gone t760.5
EVENTS="sched:sched_switch nosuch:event" ./spliceread true 2>badev.err &
pid=$!
wait $pid
assert_eq "t760.5 exit status of a bad event" 1 $?
gone t760.5b
grep -q 'cannot enable nosuch:event' badev.err || { cat badev.err; fail "t760.5: no message"; }
EVENTS="" ./spliceread true 2>noev.err
assert_eq "t760.5 exit status without EVENTS" 2 $?
grep -q 'EVENTS is empty' noev.err || { cat noev.err; fail "t760.5: no message for EVENTS"; }
echo "ok: $(grep '^SPLICEREAD' normal.err)"
