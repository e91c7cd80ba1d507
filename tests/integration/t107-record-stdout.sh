#!/bin/sh
# SPDX-License-Identifier: MIT
# t107-record-stdout: `pp-record -o -` writes the capture to standard output for live use:
# piped into `pp-analyze - info` and into the test reader it reads completely; the
# summary stays on stderr; while recording, segments reach the pipe within ~100 ms; a
# terminal is refused; a reader that goes away ends the recording cleanly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch
# the events recorded below: a sleeper switching every 5 ms (an idle machine switches
# little), for at most 15 s
"$PP_LOAD/sleeper" -n 3000 -s 5ms >/dev/null 2>&1 &
load=$!

"$PP_RECORD" -a -e sched:sched_switch --duration 1 -o - 2>rec.err | "$CAPCHECK" - summary >sum.txt
rc=$?
cat rec.err sum.txt
assert_eq "capcheck on the pipe" 0 $rc
n=$(sv_pipe() { sed -n "s/^$1=//p" sum.txt; }; sv_pipe samples)
assert_ge "events through the pipe" 10 "$n"
grep -q "^pp-record: $n events" rec.err || fail "the summary does not match what was read ($n)"
assert_eq "order" ok "$(sed -n 's/^order=//p' sum.txt)"

"$PP_RECORD" -a -e sched:sched_switch --duration 1 -o - 2>/dev/null | "$PP_ANALYZE" - info >info.txt 2>&1
rc=$?
cat info.txt
assert_eq "pp-analyze - info exit status" 0 $rc
grep -q "sched:sched_switch" info.txt || fail "pp-analyze - info does not list the event"

# promptness: 1.5 s into a 4 s recording, the output already holds events
"$PP_RECORD" -a -e sched:sched_switch --duration 4 -o - >live.cap 2>/dev/null &
rpid=$!
sleep 1.5
cp live.cap early.cap
wait $rpid
assert_ge "events readable after 1.5 s" 1 "$("$CAPCHECK" early.cap summary | sed -n 's/^samples=//p')"
first=$("$CAPCHECK" early.cap summary | sed -n 's/^first_ns=//p')
last=$("$CAPCHECK" early.cap summary | sed -n 's/^last_ns=//p')
assert_ge "time covered after 1.5 s (ms)" 800 $(( (last - first) / 1000000 ))

# a terminal is refused (when the test has one)
if [ -t 1 ] || script -qc true /dev/null >/dev/null 2>&1; then
	if command -v script >/dev/null 2>&1; then
		script -qc "$PP_RECORD -e sched:sched_switch --duration 1 -o -" /dev/null >tty.out 2>&1
		grep -q "refusing to write a capture to a terminal" tty.out ||
			{ cat tty.out; fail "a terminal was not refused"; }
	fi
fi

# t107.5 (2026-12-04) the command's own output never enters the streamed capture: it goes
# to stderr, or to --command-stdout FD (pp gives its standard output)
"$PP_RECORD" -q -e sched:sched_switch -o - -- sh -c 'echo t107-hello; echo t107-more' \
	>cmd.pp 2>cmd.err || { cat cmd.err; fail "pp-record -o - -- COMMAND"; }
grep -q t107-hello cmd.err || { cat cmd.err; fail "the command's stdout is not on stderr"; }
"$PP_ANALYZE" cmd.pp event-care >care.out 2>&1
grep -q "corrupt\|bad magic" care.out && { cat care.out; fail "the command's text is in the capture"; }
"$PP_RECORD" -q -e sched:sched_switch -o - --command-stdout 3 -- sh -c 'echo t107-fd3' \
	>cmd3.pp 2>cmd3.err 3>cmd3.out || { cat cmd3.err; fail "pp-record --command-stdout 3"; }
grep -q t107-fd3 cmd3.out || fail "--command-stdout 3: the command's stdout is not on fd 3"
grep -q t107-fd3 cmd3.err && fail "--command-stdout 3: the command's stdout went to stderr"

# the reader goes away: pp-record stops (not killed by SIGPIPE), says why at the info level
# (-q: nothing, as under pp) and exits 0, as `cat | head` does
( "$PP_RECORD" -a -e sched:sched_switch --duration 20 -o - 2>epipe.err; echo $? >epipe.rc ) |
	head -c 1000 >/dev/null
cat epipe.err
grep -q "pp-record: cannot write capture to standard output: Broken pipe; recording stopped" epipe.err ||
	fail "no line saying the reader quit"
grep -q "error" epipe.err && fail "the reader quitting is not an error"
assert_eq "exit status when the reader quits" 0 "$(cat epipe.rc)"
( "$PP_RECORD" -q -a -e sched:sched_switch --duration 20 -o - 2>epipe.err ) | head -c 1000 >/dev/null
[ -s epipe.err ] && { cat epipe.err; fail "-q: a line when the reader quits"; }
kill $load 2>/dev/null
exit 0
