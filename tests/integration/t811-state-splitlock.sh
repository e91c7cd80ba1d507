#!/bin/sh
# SPDX-License-Identifier: MIT
# t811-state-splitlock: split-lock's mergeable state, the count engine's rounds (issue 19,
# 2026-12-05), on t384's fixture without its samples (this machine has no PMU to record the
# split-lock event): cut inside a round, between the two CPUs' readings of a round and after
# them, the report of the merge of --time ,T and --time T+1ns, is the replay byte for byte
# (text, JSON, CSV; -i 2000 too), A+B = B+A; another -i refuses to merge; the fixture with
# its samples (-T: RIPs per round, not in a state) refuses --state-out in one line.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

grep -v '^sample\|^event 2 ' "$FIX/splitlock.desc" >counts.desc
"$CAPBUILD" counts.desc counts.ppcap >/dev/null || fail "capbuild counts.desc"
build_fixture splitlock

# t811.1 the merge of the halves is the replay
CUTS="$(ns 1001.5) $(ns 1002.000015) $(ns 1002.5)"
check sl counts.ppcap split-lock
check sl-json counts.ppcap split-lock --format json
check sl-csv counts.ppcap split-lock --format csv
check sl-2s counts.ppcap split-lock -i 2000
run_ok one.out "$PP_ANALYZE" counts.ppcap split-lock
grep -q '^   0         3000   100$' one.out || { cat one.out; fail "the replay is not CPU 0's 3000"; }
echo "t811: $checks cuts merged back into their replay"

# t811.2 another -i does not merge; samples have no state
T=$(ns 1001.5)
run_ok /dev/null "$PP_ANALYZE" counts.ppcap split-lock --time ",${T}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" counts.ppcap split-lock -i 2000 --time "$((T + 1))ns," --state-out b.state
refused "another -i" "different options" "$PP_ANALYZE" merge a.state b.state -o x.state
"$PP_ANALYZE" splitlock.ppcap split-lock --state-out x.state >out.out 2>err.out &&
	fail "a capture with samples made a state"
[ "$(wc -l <err.out)" -eq 1 ] || { cat err.out; fail "samples: not one line"; }
grep -q "split-lock: the capture has 7 split-lock samples" err.out || { cat err.out; fail "samples: message"; }
[ -e x.state ] && fail "a refused --state-out or merge wrote a state"
state_hostile a.state
exit 0
