#!/bin/sh
# SPDX-License-Identifier: MIT
# t101-record-ctxsw: a context-switch storm of N round trips between two pinned threads,
# recorded system-wide: >= 2N sched_switch samples of those two tids (less 10), timestamps
# non-decreasing over the whole file, nothing lost, nothing late.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

N=50000
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup -o ctx.cap -- \
	"$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err
rc=$?
cat rec.err
assert_eq "pp-record exit status" 0 $rc
tids=$(lv rec.err tids)
[ -n "$tids" ] || fail "no LOAD line from ctxsw"

"$CAPCHECK" ctx.cap summary >sum.txt || fail "capcheck cannot read the capture"
cat sum.txt
switches=$("$CAPCHECK" ctx.cap count sched:sched_switch "$tids")
# each round trip switches each thread out once, but for a trip or two at the ends whose
# read finds its data already there (t750's slack)
assert_ge "sched_switch samples of tids $tids" $((2 * N - 10)) "$switches"
assert_eq "timestamp order" ok "$(sv ctx.cap order)"
assert_eq "lost" 0 "$(sv ctx.cap lost)"
assert_eq "late" 0 "$(sv ctx.cap late)"
assert_eq "stat late" 0 "$("$CAPCHECK" ctx.cap stat late)"
assert_eq "stat lost" 0 "$("$CAPCHECK" ctx.cap stat lost)"
assert_eq "truncated" 0 "$(sv ctx.cap truncated)"
# the summary on stderr names the events and the bytes
grep -q "sched:sched_switch" rec.err || fail "the summary does not list sched:sched_switch"
grep -q "bytes/event" rec.err || fail "the summary gives no bytes/event"
exit 0
