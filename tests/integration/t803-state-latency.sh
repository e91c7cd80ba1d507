#!/bin/sh
# SPDX-License-Identifier: MIT
# t803-state-latency: mergeable state of the latency engine's analyzers on recorded loads
# (issue 19, 2026-12-05): rundelay, multi-trace (delay, pair, syscalls), nested-trace --impl
# delay and syscalls over captures of pinpair (two spinners sharing a CPU, a sleeper: run
# delays cross any cut) and of the syscalls load.  For each, at three cuts T: the report of
# the merge of --time ,T and --time T+1ns, is the one-pass report byte for byte, A+B and B+A
# are the same bytes; the getppid pairs of the merge are the load's count; states of other
# options refuse to merge; what prints as it goes refuses --state-out in one line.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter

# rec NAME EVENTS LOAD...: record the load's events; skip on a loss
rec() {
	_n=$1 _e=$2
	shift 2
	"$PP_RECORD" -m 1024 -e "$_e" -o "$_n.ppcap" -- "$@" >"$_n.rec.out" 2>"$_n.rec.err" ||
		{ cat "$_n.rec.err"; fail "pp-record $_n exited $?"; }
	grep -q ' lost: 0;' "$_n.rec.err" ||
		skip "the recording lost events (busy machine): $(grep lost: "$_n.rec.err")"
}
rec sched sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_switch \
	"$PP_LOAD/pinpair" -d 1 -c 0 -s 2
rec sc raw_syscalls:sys_enter,raw_syscalls:sys_exit "$PP_LOAD/syscalls" -t 2 -n 20000
load=$(grep '^LOAD syscalls' sc.rec.err) || { cat sc.rec.err; fail "no LOAD line"; }
NR=$(load_field "$load" getppid_nr)
CALLS=$(load_field "$load" getppid)
assert_eq "getppid calls of the load" 40000 "$CALLS"

# t803.1 rundelay: the spinners' preemptions and the sleeper's wakeups cross every cut
check rd sched.ppcap rundelay
check rd-perins sched.ppcap rundelay --perins
check rd-json sched.ppcap rundelay --perins --format json
# ... and the join does the work: the same halves merged with a 1 ns gap (not adjacent, not
# joined) miss the delays that crossed
joined=0
run_ok one.out "$PP_ANALYZE" sched.ppcap rundelay --perins
set -- $(cuts sched.ppcap)
for t in $1 $2 $3 $(($1 / 2 + $2 / 2)) $(($2 / 2 + $3 / 2)) $(($1 - ($2 - $1) / 2)) $(($3 + ($3 - $2) / 2)); do
	run_ok /dev/null "$PP_ANALYZE" sched.ppcap rundelay --perins --time ",${t}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" sched.ppcap rundelay --perins --time "$((t + 2))ns," --state-out g.state
	run_ok gap.out "$PP_ANALYZE" report a.state g.state
	cmp -s gap.out one.out || joined=$((joined + 1))
done
[ $joined -gt 0 ] || fail "rundelay: no cut had a delay across it (the join is untested)"

# t803.2 multi-trace: wakeup to switch-in per thread (delay), pairs, a cycle, syscalls
check mt-delay sched.ppcap multi-trace -e sched:sched_wakeup,sched:sched_wakeup_new \
	-e 'sched:sched_switch//key=next_pid/' -k pid --perins
check mt-pair sched.ppcap multi-trace -e sched:sched_wakeup -e 'sched:sched_switch//key=next_pid/' \
	-k pid --impl pair
check mt-pair-json sched.ppcap multi-trace -e 'sched:sched_switch//key=prev_pid/' \
	-e 'sched:sched_switch//key=next_pid/' --impl pair --format json
check mt-cycle sched.ppcap multi-trace -e 'sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/' \
	--cycle -k next_pid --perins
check mt-sc sc.ppcap multi-trace -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -k common_pid \
	--impl syscalls --perins
check mt-csv sc.ppcap multi-trace -e "raw_syscalls:sys_enter/id==$NR/" \
	-e "raw_syscalls:sys_exit/id==$NR/" -k common_pid --format csv

# t803.3 nested-trace --impl delay: entries and exits of every system call, per thread
check nt sc.ppcap nested-trace -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -k common_pid \
	--impl delay --perins

# t803.4 syscalls: a call open at the cut is joined with its exit
check sc sc.ppcap syscalls --perins
check sc-json sc.ppcap syscalls --format json
echo "t803: $checks cuts merged back into their replay"

# t803.5 ground truth: the getppid pairs of the merged halves are the load's calls
set -- $(cuts sc.ppcap)
CUT=$2
i=0
for h in ",${CUT}ns" "$((CUT + 1))ns,"; do
	i=$((i + 1))
	run_ok /dev/null "$PP_ANALYZE" sc.ppcap multi-trace -e "raw_syscalls:sys_enter/id==$NR/" \
		-e "raw_syscalls:sys_exit/id==$NR/" -k common_pid --format csv --time "$h" \
		--state-out h$i.state
done
run_ok gt.csv "$PP_ANALYZE" report h1.state h2.state --format csv
# (to 1 %: the engine pairs an exit only after its entry's time, and a few of 40000 did not
# come after it on this machine; a sanitizer build's load makes its runtime's own few getppid
# calls, as in t383.1)
HI=$CALLS
sanitized && HI=$((CALLS + 20))
assert_between "getppid pairs of the merge" $((CALLS * 99 / 100)) "$HI" \
	"$(awk -F, 'NR > 1 { s += $4 } END { print s }' gt.csv)"

# t803.6 states of other options do not merge; what prints as it goes has no state
CUT=$(cuts sched.ppcap | cut -d' ' -f2)
run_ok /dev/null "$PP_ANALYZE" sched.ppcap rundelay --time ",${CUT}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap rundelay --perins --time "$((CUT + 1))ns," --state-out b.state
refused "rundelay, other options" "cannot merge 'a.state' and 'b.state': different options" \
	"$PP_ANALYZE" merge a.state b.state -o x.state
MT="multi-trace -e sched:sched_wakeup -e sched:sched_switch//key=next_pid/ -k pid"
run_ok /dev/null "$PP_ANALYZE" sched.ppcap $MT --time ",${CUT}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap $MT --impl pair --time "$((CUT + 1))ns," --state-out b.state
refused "multi-trace, delay and pair" "different options" "$PP_ANALYZE" report a.state b.state
run_ok /dev/null "$PP_ANALYZE" sc.ppcap nested-trace -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--impl delay --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sc.ppcap nested-trace -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-k common_pid --impl delay --state-out b.state
refused "nested-trace, other keys" "different options" "$PP_ANALYZE" merge a.state b.state -o x.state
refused "rundelay --than" "rundelay: --than with --state-out" \
	"$PP_ANALYZE" sched.ppcap rundelay --than 1ms --state-out x.state
refused "multi-trace --detail" "multi-trace: --detail with --state-out" \
	"$PP_ANALYZE" sched.ppcap $MT --detail --state-out x.state
refused "nested-trace call-delay" "nested-trace: --impl call-delay with --state-out: .*single-stream" \
	"$PP_ANALYZE" sc.ppcap nested-trace -e raw_syscalls:sys_enter,raw_syscalls:sys_exit --state-out x.state
refused "nested-trace call" "nested-trace: --impl call with --state-out" \
	"$PP_ANALYZE" sc.ppcap nested-trace -e raw_syscalls:sys_enter,raw_syscalls:sys_exit --impl call \
	--state-out x.state
refused "a trigger" "trigger of .* single-stream" \
	"$PP_ANALYZE" sched.ppcap multi-trace -e sched:sched_wakeup -e 'sched:sched_switch//key=next_pid/' \
	-e 'sched:sched_wakeup_new//trigger/' -k pid --state-out x.state
[ -e x.state ] && fail "a refused --state-out wrote a state"

# t803.7 hostile bytes in the engine's section (its edges hold whole events): refused or
# read, never a crash (statefix.py rewrites every byte with the checksums made right)
run_ok /dev/null "$PP_ANALYZE" sched.ppcap rundelay --perins --time ",${CUT}ns" --state-out rd.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap $MT --impl pair --time "$((CUT + 1))ns," --state-out pr.state
state_hostile rd.state pr.state
exit 0
