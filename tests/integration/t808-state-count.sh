#!/bin/sh
# SPDX-License-Identifier: MIT
# t808-state-count: the count engine's one mergeable state, for every analyzer on it (issue 19,
# 2026-12-05).  hwstat, llcstat and tlbstat on the built capture of known readings of t384
# (this machine has no PMU to record them), cut where a round is split between the CPUs'
# readings, at a round's edge and inside one; percpu-stat on a recorded context-switch storm
# (software counters).  The report of the merge of --time ,T and --time T+1ns, is the
# one-pass report byte for byte, A+B and B+A are the same bytes, three ranges merge the same
# in any grouping, and states of other options (another -i) refuse to merge.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

build_fixture hwcounters


# t808.1 the hardware tables: a round split between CPU 0's and CPU 1's readings (1002.0000101),
# a round's edge, the middle of one
H=hwcounters.ppcap
for t in 1002.0000101 1002.00002 1001.5; do
	T=$(ns $t)
	check_at "hwstat@$t" $H "$T" text hwstat
	check_at "hwstat-json@$t" $H "$T" json hwstat
	check_at "hwstat-2s@$t" $H "$T" text hwstat -i 2000
	check_at "llcstat@$t" $H "$T" csv llcstat
	check_at "tlbstat-cpu1@$t" $H "$T" text tlbstat -C 1
done

# t808.2 three ranges: ((a + b) + c) = (a + (b + c)) = report a b c = the replay
T1=$(ns 1001.5) T2=$(ns 1002.0000101)
run_ok one.out "$PP_ANALYZE" $H hwstat
run_ok /dev/null "$PP_ANALYZE" $H hwstat --time ",${T1}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" $H hwstat --time "$((T1 + 1))ns,${T2}ns" --state-out b.state
run_ok /dev/null "$PP_ANALYZE" $H hwstat --time "$((T2 + 1))ns," --state-out c.state
run_ok /dev/null "$PP_ANALYZE" merge a.state b.state -o ab.state
run_ok /dev/null "$PP_ANALYZE" merge ab.state c.state -o ab_c.state
run_ok /dev/null "$PP_ANALYZE" merge b.state c.state -o bc.state
run_ok /dev/null "$PP_ANALYZE" merge a.state bc.state -o a_bc.state
cmp ab_c.state a_bc.state >/dev/null || fail "t808.2: (a+b)+c and a+(b+c) differ"
run_ok three.out "$PP_ANALYZE" report c.state a.state b.state
diff -u one.out three.out || fail "t808.2: three ranges are not the replay"

# t808.3 percpu-stat: software counters of a context-switch storm on CPU 1
if [ "$(id -u)" = 0 ] && [ "$(nproc)" -ge 2 ]; then
	"$PP_RECORD" -q --no-ftrace --for 'percpu-stat -i 50' -o ps.cap -- "$PP_LOAD/ctxsw" -n 50000 -c 1 \
		2>rec.err || { cat rec.err; fail "pp-record percpu-stat"; }
	"$PP_ANALYZE" ps.cap info | awk '$1 == "time" { print $2, $4; exit }' >span
	read -r first last <span
	T=$((($(ns "$first") + $(ns "$last")) / 2))
	check_at ps ps.cap "$T" text percpu-stat -i 100
	check_at ps-json ps.cap "$T" json percpu-stat -i 100
	check_at ps-csv ps.cap "$T" csv percpu-stat -i 50
else
	echo "t808.3 skipped: recording percpu-stat's counters needs root and 2 CPUs"
fi

# t808.4 other options refuse to merge
T=$(ns 1002.5)
run_ok /dev/null "$PP_ANALYZE" $H hwstat --time ",${T}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" $H hwstat -i 2000 --time "$((T + 1))ns," --state-out b.state
"$PP_ANALYZE" merge a.state b.state -o x.state 2>err.out && fail "t808.4: other -i merged"
grep -q "cannot merge 'a.state' and 'b.state': different options" err.out ||
	{ cat err.out; fail "t808.4: message"; }
[ -e x.state ] && fail "t808.4: a refused merge wrote its output"
exit 0
