#!/bin/sh
# SPDX-License-Identifier: MIT
# t603-live-save: `pp ANALYZER ... --save FILE` keeps the capture it analysed live.  After
# Ctrl-C the file is complete (indexed, integrity ok, the recorder's stats included), and
# pp-analyze FILE ANALYZER prints exactly what the live run printed.  A FILE that cannot
# be written is refused before anything runs.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
command -v setsid >/dev/null 2>&1 || skip "no setsid(1) for a process group"

ctrl_c 2.5 top.out top.err "$PP" top -e sched:sched_switch -i 1000 --save top.cap
rc=$?
cat top.err
assert_eq "pp top --save exit status" 0 $rc
[ -s top.cap ] || fail "no saved capture"
"$PP_ANALYZE" top.cap info >info.txt 2>&1 || { cat info.txt; fail "pp-analyze info on the saved capture"; }
cat info.txt
grep -q "^format .*(indexed)" info.txt || fail "the saved capture has no index"
grep -q "^integrity *ok" info.txt || fail "the saved capture is not complete"
"$PP_ANALYZE" top.cap top -e sched:sched_switch -i 1000 >off.out 2>off.err ||
	{ cat off.err; fail "pp-analyze top on the saved capture"; }
check_output top.out off.out

ctrl_c 2 sc.out sc.err "$PP" syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	--save sc.cap
rc=$?
assert_eq "pp syscalls --save exit status" 0 $rc
"$PP_ANALYZE" sc.cap syscalls -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit >sc.off 2>&1 ||
	fail "pp-analyze syscalls on the saved capture"
check_output sc.out sc.off

"$PP" top -e sched:sched_switch --save /nonexistent-dir/x.cap >bad.out 2>bad.err
rc=$?
cat bad.err
assert_eq "exit status for an unwritable --save" 2 $rc
grep -q "cannot write '/nonexistent-dir/x.cap'" bad.err || fail "no message naming the file"
exit 0
