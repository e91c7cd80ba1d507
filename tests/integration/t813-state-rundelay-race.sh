#!/bin/sh
# SPDX-License-Identifier: MIT
# t813-state-rundelay-race: rundelay's merge of --time ranges and its -j parts count a delay
# exactly when one pass does, on the orders a busy machine makes (tests/fixtures/lat-race.desc):
# a wakeup of a task still on its CPU on the way to sleep (unnecessary: no delay starts; a
# range that has seen no switch on that CPU cannot tell, the range before can), two wakeups
# before a switch-in, a wakeup and a switch in one nanosecond, R and R+ switch-outs.  The one
# pass counts the fixture's delays; the merge of --time ,T and --time T+1ns, at every event's
# time and the nanosecond before is the one pass byte for byte, and so are three ranges grouped
# either way and -j 2, 3 and 5 on the fixture cut a record a segment.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

build_fixture lat-race
RD="rundelay --perins"

# t813.1 ground truth: the delays of the fixture, and none from the unnecessary wakeups
run_ok one.out "$PP_ANALYZE" lat-race.ppcap $RD
row() { awk -v p="$1" -v s="$2" '$1 == p && $3 == s { print $6, $7; exit }' one.out; }
assert_eq "t813.1 100: the wakeup after its switch-out (not the race's)" "1 5000.000" \
	"$(row 100 sched_wakeup)"
assert_eq "t813.1 200: R+ and R" "2 4500.000" "$(row 200 sched_switch)"
assert_eq "t813.1 300: the later of two wakeups" "1 2000.000" "$(row 300 sched_wakeup)"
assert_eq "t813.1 400" "1 1000.000" "$(row 400 sched_wakeup)"
assert_eq "t813.1 rows" 4 "$(awk 'NR > 3 && NF' one.out | wc -l)"

# t813.2 the merge at every event's time and the nanosecond before it
times=$("$PP_ANALYZE" lat-race.ppcap export --to csv | sed 1d | cut -d, -f1 | sort -u)
n=0
for s in $times; do
	t=$(ns "$s")
	for c in $((t - 1)) $t; do
		split_merge "cut $c" lat-race.ppcap "$c" $RD
		run_ok merged.out "$PP_ANALYZE" report ab.state
		diff -u one.out merged.out >diff.out ||
			{ cat diff.out; fail "t813.2 at $c: the merge is not the replay"; }
		n=$((n + 1))
	done
done
[ $n -ge 30 ] || fail "t813.2: only $n cuts"
echo "ok t813.2: $n cuts"

# t813.3 three ranges, (A+B)+C and A+(B+C), around each event of the race
set -- $(for s in $times; do ns "$s"; done)
while [ $# -ge 3 ]; do
	t1=$1 t2=$2
	shift
	run_ok /dev/null "$PP_ANALYZE" lat-race.ppcap $RD --time ",${t1}ns" --state-out 1.state
	run_ok /dev/null "$PP_ANALYZE" lat-race.ppcap $RD --time "$((t1 + 1))ns,${t2}ns" --state-out 2.state
	run_ok /dev/null "$PP_ANALYZE" lat-race.ppcap $RD --time "$((t2 + 1))ns," --state-out 3.state
	run_ok /dev/null "$PP_ANALYZE" merge 1.state 2.state -o 12.state
	run_ok /dev/null "$PP_ANALYZE" merge 2.state 3.state -o 23.state
	run_ok m1.out "$PP_ANALYZE" report 12.state 3.state
	run_ok m2.out "$PP_ANALYZE" report 1.state 23.state
	cmp -s one.out m1.out || { diff -u one.out m1.out; fail "t813.3 (A+B)+C at $t1,$t2"; }
	cmp -s one.out m2.out || { diff -u one.out m2.out; fail "t813.3 A+(B+C) at $t1,$t2"; }
done
echo "ok t813.3"

# t813.4 in parts
for j in 2 3 5; do
	"$PP_ANALYZE" -v -j $j lat-race.ppcap.cut $RD >j.out 2>j.err || { cat j.err; fail "-j $j"; }
	grep -q "in [0-9]* parts" j.err || { cat j.err; fail "t813.4 -j $j did not run in parts"; }
	cmp -s one.out j.out || { diff -u one.out j.out; fail "t813.4 -j $j is not the replay"; }
done
echo "ok t813.4"
exit 0
