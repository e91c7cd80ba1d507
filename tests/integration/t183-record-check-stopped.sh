#!/bin/sh
# SPDX-License-Identifier: MIT
# t183-record-check-stopped: a system-wide recording asked for --duration 20 and stopped
# by Ctrl-C after about 1 s covers less time than asked: `check` says so (time "no", how
# long of the 20 s), while scope and CPUs are met (record.target system, every online CPU
# in record.cpus); the same recording run to its end (--duration 1) is complete.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

ctrl_c 1 rec.out rec.err "$PP_RECORD" -e sched:sched_switch --duration 20 -o cut.pp
[ -s cut.pp ] || { cat rec.err; fail "no capture after Ctrl-C"; }
"$PP_ANALYZE" cut.pp info | grep -q 'integrity    ok' || fail "the capture is not whole"
"$PP_ANALYZE" cut.pp check trace -e sched:sched_switch >cut.out
assert_eq "check exit (stopped early)" 1 $?
grep -q '^time      no      recorded for [0-9.]* m*s of the 20.000 s --duration asked (stopped early)$' cut.out ||
	{ cat cut.out; fail "time line"; }
grep -q '^events    ok      sched:sched_switch$' cut.out || { cat cut.out; fail "events line"; }
# trace's plan does not record every CPU, sched-migrate's does (its own event is absent here)
grep -q '^scope     n/a ' cut.out || { cat cut.out; fail "scope line"; }
"$PP_ANALYZE" cut.pp check sched-migrate >mig.out
grep -q '^scope     ok      recorded system-wide$' mig.out || { cat mig.out; fail "sched-migrate scope"; }
grep -q '^cpus      ok      every online CPU$' mig.out || { cat mig.out; fail "sched-migrate cpus"; }

"$PP_RECORD" -e sched:sched_switch --duration 1 -o full.pp >rec2.out 2>rec2.err || { cat rec2.err; fail "pp-record"; }
"$PP_ANALYZE" full.pp check trace -e sched:sched_switch >full.out || { cat full.out; fail "complete: exit $?"; }
grep -q '^time      ok ' full.out || { cat full.out; fail "time (full)"; }
exit 0
