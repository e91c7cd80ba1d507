#!/bin/sh
# SPDX-License-Identifier: MIT
# t369-breakpoint-golden: breakpoint on a built capture (tests/fixtures/breakpoint.desc): hits
# of a user write breakpoint with x86_64 registers and stacks, a kernel read/write one, one
# recorded without attr or registers; selection by address, -v counts, flame graph, JSON.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture breakpoint

# t369.1 every hit, the counts with -v
run_ok actual "$PP_ANALYZE" breakpoint.ppcap breakpoint -v
check_golden t369/1 actual

# t369.2 two of the breakpoints, as JSON
run_ok actual "$PP_ANALYZE" breakpoint.ppcap breakpoint 0x404040 0xffffffff82000000 --format json
check_golden t369/2 actual

# t369.3 the stacks of the user breakpoint's hits as a folded flame graph
run_ok out "$PP_ANALYZE" breakpoint.ppcap breakpoint 0x404020/8:w --flame-graph bp.folded
assert_eq "folded stacks" "bptest;main;watch_loop 3" "$(cat bp.folded)"

# t369.4 an address without a breakpoint in the capture is an error
"$PP_ANALYZE" breakpoint.ppcap breakpoint 0x1234 >out 2>err && fail "a missing breakpoint was accepted"
grep -q "no breakpoint at these addresses" err || { cat err; fail "no message"; }
exit 0
