#!/bin/sh
# SPDX-License-Identifier: MIT
# t176-oldkernel-static: the static pp-record (make static) as 4.18 answers it.
#
# The static binary carries its own C library (this build machine's), which calls the
# system calls of newer kernels (clone3, faccessat2 ...) and falls back on ENOSYS.  As
# 4.18 answers (tests/tools/oldkernel: no system call after rseq), it records a sleeper
# whose S stays match its nanosleep calls (lib-oldkernel.sh sleep_truth), and pp check
# through it says yes (docs/production.md: where the static pp-record runs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_event sched:sched_switch

need_static
"$OLDK" -v 4.18 -- "$STATIC" --for 'task-state --filter sleeper' -a -m 1024 -o s.pp -- \
	"$PP_LOAD/sleeper" -n 40 -s 10ms >s.out 2>s.err || { cat s.err; fail "pp-record.static"; }
grep -q "error\|warning" s.err && { cat s.err; fail "an error or a warning"; }
sleep_truth "static as 4.18" s.pp s.err
"$OLDK" 4.18 -- "$STATIC" --check --for task-state >check.out 2>&1
assert_eq "pp-record.static --check as 4.18: exit" 0 $?
grep -q "^verdict: yes" check.out || { cat check.out; fail "verdict"; }
# the C library's thread creation tried clone3 (5.3), got ENOSYS and fell back to clone
if command -v strace >/dev/null; then
	"$OLDK" 4.18 -- strace -f -e trace=clone3 -o st.out "$STATIC" -q -e sched:sched_switch \
		-o st.pp -- true >/dev/null 2>&1 || fail "pp-record.static under strace"
	grep -q "clone3(.*= -1 ENOSYS" st.out && echo "t176: clone3 refused, threads made with clone"
	"$PP_ANALYZE" st.pp info >st.info 2>&1 || { cat st.info; fail "the strace run's capture"; }
fi
exit 0
