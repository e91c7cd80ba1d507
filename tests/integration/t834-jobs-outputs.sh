#!/bin/sh
# SPDX-License-Identifier: MIT
# t834-jobs-outputs: where the report of -j N goes (issue 19).  --state-out writes the same
# state bytes as one thread (the parts' states merged and joined into one source), which
# merges with another range's state as a one-thread state does; a --time range without a state
# prints the one-thread report; -o FILE and --format json/csv
# write the same files; two analyzers in one pass print their reports in order; a capture
# with a single segment of events runs on one thread (nowhere to cut).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
F=$TOP/tests/fixtures
"$CAPBUILD" -s 1 "$F/cpu/synth-sched.desc" s.ppcap || fail "capbuild"
"$CAPBUILD" "$F/cpu/synth-sched.desc" whole.ppcap || fail "capbuild"

# t834.1 --state-out: the same bytes, and the same report
"$PP_ANALYZE" -j 1 s.ppcap task-state --perins --state-out one.state || fail "-j 1 --state-out"
"$PP_ANALYZE" -v -j 4 s.ppcap task-state --perins --state-out four.state 2>four.err ||
	{ cat four.err; fail "-j 4 --state-out"; }
grep -q ' in [0-9]* parts' four.err || { cat four.err; fail "--state-out did not run in parts"; }
cmp one.state four.state || fail "-j 4 wrote another state than -j 1"
"$PP_ANALYZE" -j 1 s.ppcap task-state --perins >replay.out
"$PP_ANALYZE" report four.state >report.out
cmp -s replay.out report.out || fail "the report of the -j 4 state is not the replay"
# a --time range of it, in parts, merges with the rest as the one-thread states do
T=1000052000000
"$PP_ANALYZE" -j 4 s.ppcap task-state --perins --time ",${T}ns" --state-out a4.state || fail "a4"
"$PP_ANALYZE" -j 1 s.ppcap task-state --perins --time ",${T}ns" --state-out a1.state || fail "a1"
"$PP_ANALYZE" -j 3 s.ppcap task-state --perins --time "$((T + 1))ns," --state-out b3.state || fail "b3"
cmp a1.state a4.state || fail "--time ,T: -j 4 wrote another state than -j 1"
"$PP_ANALYZE" report a4.state b3.state >ab.out || fail "report a4 b3"
cmp -s replay.out ab.out || { diff -u replay.out ab.out; fail "the ranges' merge is not the replay"; }

# a --time range without a state: the parts skip what the one pass seeks past (the segments
# that end before the range, side band and all), and skim the rest
for r in "$((T - 20000000))ns,$((T + 20000000))ns" "$((T + 1))ns," ",${T}ns"; do
	for a in "task-state --perins" "top -e sched:sched_switch -i 10000"; do
		# shellcheck disable=SC2086 # $a are words
		"$PP_ANALYZE" -j 1 s.ppcap $a --time "$r" >t1.out || fail "-j 1 $a --time $r"
		# shellcheck disable=SC2086
		"$PP_ANALYZE" -j 4 s.ppcap $a --time "$r" >t4.out || fail "-j 4 $a --time $r"
		cmp -s t1.out t4.out || { diff -u t1.out t4.out; fail "$a --time $r: -j 4 differs"; }
	done
done

# t834.2 -o FILE, --format json and csv
for f in json csv; do
	"$PP_ANALYZE" -j 1 s.ppcap task-state --perins --format $f -o one.$f || fail "-j 1 -o"
	"$PP_ANALYZE" -j 4 s.ppcap task-state --perins --format $f -o four.$f >stdout.out ||
		fail "-j 4 -o"
	[ -s stdout.out ] && fail "-j 4 -o printed on stdout"
	[ -s one.$f ] || fail "-o one.$f is empty"
	cmp one.$f four.$f || fail "-o four.$f differs"
done

# t834.3 two analyzers: their reports in the order given
"$PP_ANALYZE" -j 1 s.ppcap top -e sched:sched_switch -i 10000 , task-state --perins >chain.1
"$PP_ANALYZE" -v -j 4 s.ppcap top -e sched:sched_switch -i 10000 , task-state --perins >chain.4 \
	2>chain.err
grep -q ' in [0-9]* parts' chain.err || { cat chain.err; fail "the chain did not run in parts"; }
cmp -s chain.1 chain.4 || { diff -u chain.1 chain.4; fail "the chain's reports differ"; }
head -1 chain.4 | grep -q 'sample' || fail "top's report is not first"

# t834.4 nowhere to cut: one events segment
"$PP_ANALYZE" -v -j 4 whole.ppcap task-state --perins >whole.out 2>whole.err
grep -q 'nowhere to cut' whole.err || { cat whole.err; fail "-v did not say there is nowhere to cut"; }
cmp -s replay.out whole.out || fail "the one-segment capture's report differs"
exit 0
