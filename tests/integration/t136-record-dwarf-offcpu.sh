#!/bin/sh
# SPDX-License-Identifier: MIT
# t136-record-dwarf-offcpu: sched:sched_switch --call-graph dwarf, the off-CPU stacks of a
# program without frame pointers (tests/load/fpless -s sleeps in fpl_level3): the kernel's
# frames down to __schedule, then the user frames of the sleeping chain from nanosleep up
# to main, joined in one stack; trace -g prints them, profile's folded stacks count them.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
need_event sched:sched_switch
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"

"$PP_RECORD" -e sched:sched_switch --call-graph dwarf,16384 -o s.cap -- \
	"$PP_LOAD/fpless" -s -d 0.5 >rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" s.cap info >info.out 2>&1 || { cat info.out; fail "pp-analyze info exited $?"; }
grep -q '^integrity *ok' info.out || { cat info.out; fail "integrity"; }
"$PP_ANALYZE" s.cap profile -e sched:sched_switch -g --flame-graph s.folded >prof.out 2>&1 ||
	{ cat prof.out; fail "pp-analyze profile exited $?"; }
awk '$0 ~ /^fpless;/ { n = $NF; t += n
	if ($0 ~ /;main;fpl_level1;fpl_level2;fpl_level3;nanosleep;.*;__schedule[; ]/) m += n }
     END { printf "%d %d\n", t, m }' s.folded >counts
read total chain <counts
echo "switches of fpless $total, from fpl_level3's sleep through the kernel $chain"
assert_ge "switches of fpless" 100 "$total"
assert_ge "sleeping chains (90% of $total)" $((total * 9 / 10)) "$chain"
# trace -g: the user frames follow the kernel's in one stack, innermost first
"$PP_ANALYZE" s.cap trace -g >trace.out 2>&1 || { cat trace.out; fail "pp-analyze trace exited $?"; }
awk 'function done() { if (want && seen != "") print seen; want = 0 }
     !/^    / { done() }
     /sched:sched_switch: prev_comm=fpless .*prev_state=S/ { want = 1; seen = ""; next }
     want && /^    / { seen = seen " " $2 }
     END { done() }' trace.out >stacks
whole=$(grep -c ' __schedule.* do_nanosleep.* nanosleep+[^ ]* fpl_level3+[^ ]* fpl_level2+[^ ]* fpl_level1+[^ ]* main+' stacks)
echo "trace -g: $whole of $(wc -l <stacks) sleeps with the whole stack"
assert_ge "trace -g: whole stacks of sleeps (90%)" $(($(wc -l <stacks) * 9 / 10)) "$whole"
exit 0
