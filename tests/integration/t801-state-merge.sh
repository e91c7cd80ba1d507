#!/bin/sh
# SPDX-License-Identifier: MIT
# t801-state-merge: mergeable state (issue 19, 2026-12-05).  On the golden fixtures, for every
# analyzer with a state: a capture cut in two with --time ,T and --time T+1ns, gives two states
# whose merge prints what one replay prints, byte for byte, in text, JSON and CSV; A+B and B+A
# are the same bytes, three ranges merge the same in any grouping; states of other options,
# of another analyzer or of the same time are refused in one line; damaged states (cut, a byte
# changed, a byte changed with its checksums made right again) are refused or read, never crash.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

for f in sched-basic print-mix lat-softirq lat-syscalls counters; do build_fixture "$f"; done
CPU=$FIX/cpu
"$CAPBUILD" "$CPU/synth-sched.desc" synth-sched.ppcap || fail "capbuild synth-sched"
"$CAPBUILD" "$CPU/synth-sched-4.9.desc" synth-sched-4.9.ppcap || fail "capbuild synth-sched-4.9"

# check NAME CAPTURE T ANALYZER ARGS...: one replay against the merge of ,T and T+1ns,
checks=0
check() {
	_name=$1 _cap=$2 _t=$3
	shift 3
	_fmt=$(fmt_of "$@")
	run_ok one.out "$PP_ANALYZE" "$_cap" "$@"
	[ -s one.out ] || fail "$_name: the replay printed nothing"
	split_merge "$_name" "$_cap" "$_t" "$@"
	run_ok merged.out "$PP_ANALYZE" report ab.state --format "$_fmt"
	diff -u one.out merged.out >diff.out || { cat diff.out; fail "$_name: the merge is not the replay"; }
	# a cut where each range holds part of the report: the merge did the work, not one side
	# (each case needs one such cut, see the end)
	run_ok a.out "$PP_ANALYZE" report a.state --format "$_fmt"
	run_ok b.out "$PP_ANALYZE" report b.state --format "$_fmt"
	echo "$_name" >>cases.list
	cmp -s a.out one.out || cmp -s b.out one.out || echo "$_name" >>both.list
	# and a report of the two at once is the same as of their merge
	run_ok both.out "$PP_ANALYZE" report b.state a.state --format "$_fmt"
	cmp -s both.out merged.out || fail "$_name: report A B differs from report A+B"
	checks=$((checks + 1))
}

# t801.1 top: the golden cases of t303 (rows add by key and name)
S=sched-basic.ppcap
T=$(ns 1000.002)
check top-default $S "$T" top -e sched:sched_switch,sched:sched_wakeup
check top-keys $S "$T" top \
	-e 'sched:sched_switch//key=prev_pid/comm=prev_comm/top-by=prev_prio/top-add=prev_state/,sched:sched_wakeup//key=pid/comm=comm/alias=wk/'
check top-only-comm $S "$T" top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/alias=switches/' --only-comm
check top-k $S "$T" top -e sched:sched_switch -k prev_pid
check top-json $S "$T" top -e sched:sched_switch --format json
check top-csv $S "$T" top -e 'sched:sched_switch//key=next_pid/comm=next_comm/' --format csv
check top-printkey print-mix.ppcap "$(ns 2000.000195)" top \
	-e 'kvm:kvm_exit//key=exit_reason/printkey=printf("%-18s",exit_reason_str(1,key))/'
check top-k-expr lat-softirq.ppcap "$(mid lat-softirq.ppcap)" top -e irq:softirq_entry -k '(_cpu<<16)|vec'

# t801.2 num-dist: the cells' histograms merge bucket by bucket (t305's cases)
check nd-basic $S "$T" num-dist -e 'sched:sched_switch//num=prev_pid/,sched:sched_wakeup//num=prio/alias=prio/'
check nd-perins $S "$T" num-dist -e 'sched:sched_switch//num=prev_pid/' --perins
check nd-json print-mix.ppcap "$(ns 2000.000055)" num-dist -e 'raw_syscalls:sys_exit//num=ret/' --format json

# t801.3 syscalls (t333's): cut where no call is open, and where calls are (joined)
for t in 1000.0018 1000.0021 1000.0032; do
	T=$(ns $t)
	check sc lat-syscalls.ppcap "$T" syscalls
	check sc-perins lat-syscalls.ppcap "$T" syscalls --perins
done
check sc-csv lat-syscalls.ppcap "$(ns 1000.0035)" syscalls --perins --format csv

# t801.4 task-state (t356's cases): stays that cross the cut are joined, in every mode
TS=$CPU/task-state.ppcap
for t in 2364.6 2364.9 2365.05; do
	T=$(ns $t)
	check ts-all $TS "$T" task-state
	check ts-perins $TS "$T" task-state --perins
	check ts-sd $TS "$T" task-state --perins -S -D
	check ts-noint $TS "$T" task-state --perins --no-interruptible --filter pinpair
	check ts-csv $TS "$T" task-state --format csv
done
check ts-json $TS "$(ns 2365.1)" task-state --perins --format json --filter dio
# the synthetic one: a sleep, a run delay, a preemption, an exit and a wakeup_new across the cut
for t in 1000.012 1000.0505 1000.053 1000.062 1000.085; do
	T=$(ns $t)
	check syn-ts synth-sched.ppcap "$T" task-state --perins
	check syn-ts-s synth-sched.ppcap "$T" task-state --perins -S
	check syn-ts-d synth-sched.ppcap "$T" task-state --perins -D
	check syn-ts-noint synth-sched.ppcap "$T" task-state --perins --no-interruptible
	check syn-ts-pid synth-sched.ppcap "$T" task-state --perins -p 300
	check syn-ts-old synth-sched-4.9.ppcap "$T" task-state --perins
done

# t801.5 stat, hrcount (t388's): the count engine's rounds
C=counters.ppcap
for t in 1000.35 1000.55; do
	T=$(ns $t)
	check hr-perins $C "$T" hrcount -e sched:sched_switch,sched:sched_wakeup -i 500 --perins
	check stat-alias $C "$T" stat -e 'sched:sched_switch//alias=sw/' -i 1000 --period 200ms
	check hr-packed $C "$T" hrcount -e sched:sched_switch,sched:sched_wakeup -i 500 --perins --packed -C 0
	check stat-json $C "$T" stat -e sched:sched_wakeup -i 1000 --perins --format json
done
# t801.5b the latency engine's other analyzers: pairs across the cut are joined (t331's, t332's)
build_fixture lat-sched
for t in 1000.004 1000.0065 1000.009; do
	T=$(ns $t)
	check rd lat-sched.ppcap "$T" rundelay
	check rd-perins lat-sched.ppcap "$T" rundelay --perins
done
for t in 1000.005 1000.0125 1000.0205 1000.025; do	# a loss at 1000.0201: its line is kept
	T=$(ns $t)
	check mt-softirq lat-softirq.ppcap "$T" multi-trace -e irq:softirq_entry -e irq:softirq_exit
	check mt-softirq-perins lat-softirq.ppcap "$T" multi-trace -e irq:softirq_entry \
		-e irq:softirq_exit -k vec --perins --format json
	check nt-softirq lat-softirq.ppcap "$T" nested-trace -e irq:softirq_entry,irq:softirq_exit \
		--impl delay
done
for t in 2364.6 2364.9 2365.05; do
	T=$(ns $t)
	check mt-pair $TS "$T" multi-trace -e sched:sched_wakeup -e 'sched:sched_switch//key=next_pid/' \
		-k pid --impl pair
	check mt-rd $TS "$T" multi-trace -e sched:sched_wakeup,sched:sched_wakeup_new \
		-e 'sched:sched_switch//key=next_pid/' -k pid --perins --format csv
done
echo "t801: $checks cuts merged back into their replay"
sort -u cases.list >cases.s
sort -u both.list >both.s
cmp -s cases.s both.s || { diff cases.s both.s; fail "cases without a cut that splits their report"; }

# t801.6 three ranges: any grouping, any order, the same bytes and the replay's report
three() {
	_cap=$1 _t1=$2 _t2=$3
	shift 3
	run_ok one.out "$PP_ANALYZE" "$_cap" "$@"
	run_ok /dev/null "$PP_ANALYZE" "$_cap" "$@" --time ",${_t1}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" "$_cap" "$@" --time "$((_t1 + 1))ns,${_t2}ns" --state-out b.state
	run_ok /dev/null "$PP_ANALYZE" "$_cap" "$@" --time "$((_t2 + 1))ns," --state-out c.state
	run_ok /dev/null "$PP_ANALYZE" merge a.state b.state -o ab.state
	run_ok /dev/null "$PP_ANALYZE" merge ab.state c.state -o ab_c.state
	run_ok /dev/null "$PP_ANALYZE" merge b.state c.state -o bc.state
	run_ok /dev/null "$PP_ANALYZE" merge a.state bc.state -o a_bc.state
	run_ok /dev/null "$PP_ANALYZE" merge a.state c.state -o ac.state	# not adjacent: kept apart
	run_ok /dev/null "$PP_ANALYZE" merge ac.state b.state -o ac_b.state	# ... until b comes
	run_ok /dev/null "$PP_ANALYZE" merge c.state a.state b.state -o cab.state
	for x in a_bc ac_b cab; do
		cmp ab_c.state $x.state >/dev/null || fail "three ranges of $*: (a+b)+c and $x differ"
	done
	run_ok merged.out "$PP_ANALYZE" report ab_c.state
	diff -u one.out merged.out || fail "three ranges of $*: not the replay"
}
three $TS "$(ns 2364.7)" "$(ns 2365.0)" task-state --perins
three synth-sched.ppcap "$(ns 1000.012)" "$(ns 1000.062)" task-state --perins -S -D
three $S "$(ns 1000.001)" "$(ns 1000.003)" top -e sched:sched_switch,sched:sched_wakeup
three $TS "$(ns 2364.7)" "$(ns 2365.0)" rundelay --perins
three lat-softirq.ppcap "$(ns 1000.008)" "$(ns 1000.021)" nested-trace -e irq:softirq_entry,irq:softirq_exit --impl delay
three lat-syscalls.ppcap "$(ns 1000.0021)" "$(ns 1000.0032)" syscalls --perins
three $C "$(ns 1000.35)" "$(ns 1000.75)" hrcount -e sched:sched_switch,sched:sched_wakeup -i 500 --perins

# t801.7 what a merge refuses, in one line, with status 2
T=$(ns 1000.002)
run_ok /dev/null "$PP_ANALYZE" $S top -e sched:sched_switch --time ",${T}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" $S top -e sched:sched_switch --time "$((T + 1))ns," --state-out b.state
run_ok /dev/null "$PP_ANALYZE" $S top -e sched:sched_switch,sched:sched_wakeup --time "$((T + 1))ns," --state-out other.state
run_ok /dev/null "$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/' --time "$((T + 1))ns," --state-out nd.state
refused "other options" "cannot merge 'a.state' and 'other.state': different options" \
	"$PP_ANALYZE" merge a.state other.state -o x.state
refused "other options, report" "different options" "$PP_ANALYZE" report a.state other.state
refused "other analyzer" "states of different analyzers (top, num-dist)" \
	"$PP_ANALYZE" merge a.state nd.state -o x.state
refused "the same range twice" "count it twice" "$PP_ANALYZE" merge a.state a.state -o x.state
run_ok /dev/null "$PP_ANALYZE" $S top -e sched:sched_switch --time ",$((T + 1))ns" --state-out a2.state
refused "overlapping ranges" "both hold time of the capture of testhost" \
	"$PP_ANALYZE" merge a2.state b.state -o x.state
[ -e x.state ] && fail "a refused merge wrote its output"
# what --state-out refuses
refused "-i" "a state holds the whole range" "$PP_ANALYZE" $S top -e sched:sched_switch -i 1 --state-out x.state
refused "no state" "has no mergeable state (yet); these have: " \
	"$PP_ANALYZE" $S list --state-out x.state
refused "a stream" "trace prints a sequence in time order, which stays single-stream" \
	"$PP_ANALYZE" $S trace -e sched:sched_switch --state-out x.state
refused "a stream mode" "nested-trace: --impl call-delay with --state-out: .* stays single-stream" \
	"$PP_ANALYZE" $S nested-trace -e sched:sched_switch,sched:sched_wakeup --state-out x.state
refused "a listing" "num-dist: --than with --state-out" \
	"$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/' --than 100 --state-out x.state
refused "syscalls --than" "syscalls: --than with --state-out" \
	"$PP_ANALYZE" lat-syscalls.ppcap syscalls --than 1ms --state-out x.state
refused "task-state --than" "task-state: --than with --state-out" \
	"$PP_ANALYZE" $TS task-state --than 10ms --state-out x.state
refused "not a state" "not a pp state" "$PP_ANALYZE" report $S
refused "no file" "cannot open state 'nope.state'" "$PP_ANALYZE" report nope.state
"$PP_ANALYZE" merge -o x.state 2>err.out && fail "merge of nothing"
grep -q "merge: no state file given" err.out || { cat err.out; fail "merge of nothing: message"; }
# a state on standard output, merged from standard input
"$PP_ANALYZE" $S top -e sched:sched_switch --time ",${T}ns" --state-out - >piped.state ||
	fail "--state-out -"
cmp piped.state a.state >/dev/null || fail "--state-out - is not the file's bytes"
"$PP_ANALYZE" merge - b.state <piped.state >ab.state || fail "merge - b.state"
"$PP_ANALYZE" report ab.state >m.out && "$PP_ANALYZE" $S top -e sched:sched_switch >one.out &&
	cmp -s m.out one.out || fail "a state through pipes"

# t801.8 damaged states: refused in one line (status 2), never a crash; with the checksums
# made right, the analyzer's own section is read as hostile bytes: refused or read (status 0,
# 1 or 2), never a crash or a sanitizer report
run_ok /dev/null "$PP_ANALYZE" $TS task-state --perins --time ",$(ns 2364.9)ns" --state-out ts.state
for st in a.state nd.state ts.state; do
	size=$(wc -c <$st)
	for cut in 0 1 8 31 32 43 44 60 100 $((size / 2)) $((size - 20)) $((size - 1)); do
		[ $cut -lt "$size" ] || continue
		head -c $cut $st >cut.state
		refused "$st cut at $cut" "pp-analyze: error: 'cut.state': " "$PP_ANALYZE" report cut.state
	done
	for at in 0 9 17 29 40 50 $((size / 3)) $((size / 2)) $((size - 15)) $((size - 3)); do
		python3 -c "
import sys
b = bytearray(open('$st', 'rb').read()); b[$at] ^= 0x5a
open('bad.state', 'wb').write(b)"
		refused "$st byte $at" "'bad.state': " "$PP_ANALYZE" report bad.state
	done
done
# a state is data: one that names an analyzer without a state (sql runs what a file says)
# or writes files is refused, whatever its checksums
python3 - "$TOP/tests/integration" <<'EOT' || fail "rewriting a state"
import sys
sys.path.insert(0, sys.argv[1])
import statefix
b = bytearray(open('a.state', 'rb').read())
at = 32 + 12
assert b[at:at + 5] == b'\x03top\x00'
b[at + 1:at + 4] = b'sql'
statefix.fix(b)
open('sql.state', 'wb').write(b)
EOT
refused "a state of sql" "a state of 'sql', which has no state" "$PP_ANALYZE" report sql.state
# every byte of the analyzer sections, checksums fixed: tests/integration/statefix.py
state_hostile a.state nd.state ts.state ab.state
exit 0
