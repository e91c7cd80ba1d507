#!/bin/sh
# SPDX-License-Identifier: MIT
# t602-live-sigint: Ctrl-C on `pp ANALYZER` (SIGINT to the whole process group, as a
# terminal sends it) ends pp-record and pp-analyze cleanly: exit status 0, no process of
# the group left, the final report printed after the signal (an analyzer that reports only
# at the end prints its table), nothing on stderr (pp-record's summary is for -v).  SIGTERM
# to pp alone is forwarded and ends both the same way.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
command -v setsid >/dev/null 2>&1 || skip "no setsid(1) for a process group"

# the events every run below records: an idle machine makes few (pp leaves its own out);
# 2000 rounds a second of getppid, read and the pacing sleep, for at most 30 s
"$PP_LOAD/syscalls" -n 60000 -r 2000 -m both >/dev/null 2>&1 &
load=$!

# 3.5 s: two intervals even when starting takes more than a second
ctrl_c 3.5 top.out top.err "$PP" top -e sched:sched_switch -i 1000
rc=$?
cat top.err
assert_eq "pp top exit status after Ctrl-C" 0 $rc
assert_eq "processes of the group left" 0 "$left"
n=$(grep -c "sample .* events" top.out)
assert_ge "top reports (2 intervals and the final one)" 3 "$n"
grep -q "^ *PID *SCHED_SWITCH" top.out || fail "no top table"
[ -s top.err ] && fail "lines on stderr"
grep -qi "error" top.err && fail "an error line on stderr"

# a report printed only at the end
ctrl_c 2 sc.out sc.err "$PP" syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit
rc=$?
cat sc.err
head -5 sc.out
assert_eq "pp syscalls exit status after Ctrl-C" 0 $rc
assert_eq "processes of the group left" 0 "$left"
grep -q "^syscalls  *calls  *total(us)" sc.out || fail "no final syscalls table"
assert_ge "syscall rows" 3 "$(grep -c '^[a-z_0-9]*([0-9]*) ' sc.out)"
grep -qi "error" sc.err && fail "an error line on stderr"

# SIGTERM to pp alone
"$PP" top -e sched:sched_switch -i 1000 >term.out 2>term.err &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
rc=$?
cat term.err
assert_eq "pp exit status after SIGTERM" 0 $rc
grep -q "sample .* events" term.out || fail "no report after SIGTERM"
[ -s term.err ] && fail "lines on stderr after SIGTERM"
kill $load 2>/dev/null
exit 0
