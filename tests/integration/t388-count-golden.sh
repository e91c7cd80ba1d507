#!/bin/sh
# SPDX-License-Identifier: MIT
# t388-count-golden: hrcount and stat on a built capture of counter readings with known counts
# (tests/fixtures/counters.desc: two CPUs and a thread, read every 100 ms for 1 s): exact text
# in both of perf-prof's layouts, per instance and summed, re-binned to 200 ms, JSON; the
# refusals of a period that is not a multiple of the recorded one and of -i not a multiple of
# the period.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture counters

# t388.1 per instance, rounds of 5 slots
run_ok actual "$PP_ANALYZE" counters.ppcap hrcount -e sched:sched_switch,sched:sched_wakeup -i 500 --perins
check_golden t388/1 actual

# t388.2 summed over the instances, re-binned to 200 ms, one round of 1 s; an alias
run_ok actual "$PP_ANALYZE" counters.ppcap stat -e 'sched:sched_switch//alias=sw/' -i 1000 --period 200ms
check_golden t388/2 actual

# t388.3 the packed layout, one CPU
run_ok actual "$PP_ANALYZE" counters.ppcap hrcount -e sched:sched_switch,sched:sched_wakeup -i 500 --perins --packed -C 0
check_golden t388/3 actual

# t388.4 JSON, per instance
run_ok actual "$PP_ANALYZE" counters.ppcap stat -e sched:sched_wakeup -i 1000 --perins --format json
check_golden t388/4 actual

# t388.5 refusals, one line each
"$PP_ANALYZE" counters.ppcap hrcount -e sched:sched_switch --period 150ms >out 2>err && fail "150 ms accepted"
grep -q 'multiple of that' err || { cat err; fail "t388.5 period"; }
"$PP_ANALYZE" counters.ppcap hrcount -e sched:sched_switch --period 200ms -i 300 >out 2>err && fail "-i 300 accepted"
grep -q 'not a multiple of the period' err || { cat err; fail "t388.5 interval"; }
assert_eq "t388.5 one line" 1 "$(wc -l <err)"
echo PASS
