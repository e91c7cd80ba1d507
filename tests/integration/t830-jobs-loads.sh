#!/bin/sh
# SPDX-License-Identifier: MIT
# t830-jobs-loads: pp-analyze -j N on real recordings of the project's loads (issue 19).
# ctxsw (K round trips, both threads on one CPU) and syscalls run while pp-record records the
# scheduler events, the raw syscalls and cpu-clock with call stacks on every CPU: a capture of
# many segments, stacks in each (the parts skim what is before them).  Every
# analyzer that runs in parts prints the same bytes with -j 1, -j 2, -j 4 and -j 3 in many
# small parts shared out as the threads go, and -v says it ran in parts; the counts are the loads' ground truth (ctxsw's threads switched out at
# least K times each).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter

K=60000
"$PP_RECORD" -m 4096 -a \
	-e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-e cpu-clock -F 997 -g -o load.ppcap -- sh -c "'$PP_LOAD/ctxsw' -n $K -c 0 & '$PP_LOAD/syscalls' -n 100000; wait" \
	>rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
ctx=$(grep '^LOAD ctxsw' rec.err) || { cat rec.err; fail "no LOAD ctxsw line"; }
tids=$(load_field "$ctx" tids)
ev=$("$PP_ANALYZE" load.ppcap info | awk '$1 == "segments" { print $0 }')
echo "capture: $ev"
nev=$("$PP_ANALYZE" load.ppcap info | sed -n 's/^segments .* events \([0-9]*\),.*/\1/p')
assert_ge "events segments (a capture to cut)" 4 "$nev"

# same NAME ARGS...: -j 1, 2 and 4 print the same bytes and exit 0; -j 2 ran in parts
same() {
	_n=$1
	shift
	"$PP_ANALYZE" -j 1 load.ppcap "$@" >"$_n.1" 2>"$_n.1.err" || { cat "$_n.1.err"; fail "$_n -j 1 exited $?"; }
	[ -s "$_n.1" ] || fail "$_n: nothing printed"
	for j in 2 4; do
		"$PP_ANALYZE" -v -j $j load.ppcap "$@" >"$_n.$j" 2>"$_n.$j.err" ||
			{ cat "$_n.$j.err"; fail "$_n -j $j exited $?"; }
		cmp -s "$_n.1" "$_n.$j" || { diff -u "$_n.1" "$_n.$j" | head -30; fail "$_n: -j $j differs from -j 1"; }
	done
	grep -q "in [0-9]* parts" "$_n.2.err" || { cat "$_n.2.err"; fail "$_n: -j 2 did not run in parts"; }
	# many small parts, taken by whichever of 3 threads is free (the capture has digests)
	PP_PARTS_PER_JOB=9 "$PP_ANALYZE" -vv -j 3 load.ppcap "$@" >"$_n.3" 2>"$_n.3.err" ||
		{ cat "$_n.3.err"; fail "$_n -j 3 (27 parts) exited $?"; }
	cmp -s "$_n.1" "$_n.3" || { diff -u "$_n.1" "$_n.3" | head -30; fail "$_n: -j 3 in small parts differs from -j 1"; }
	_np=$(sed -n 's/.* in \([0-9]*\) parts/\1/p' "$_n.3.err")
	assert_ge "$_n: parts of -j 3 with 9 a thread" 12 "${_np:-0}"
	_nt=$(grep -c '^pp-analyze: thread [0-9]*: [1-9][0-9]* parts' "$_n.3.err")
	assert_eq "$_n: threads that replayed parts" 3 "$_nt"
	echo "ok $_n: $(grep -o 'in [0-9]* parts' "$_n.4.err"); -j 3: $_np parts"
}

# t830.1 task-state, in total, per thread, -S, -p, json
same ts task-state
same ts-perins task-state --perins
same ts-s task-state --perins -S
same ts-json task-state --perins --format json
same ts-p task-state --perins -p "$(echo "$tids" | cut -d, -f1)"
# t830.2 top (-i longer than the capture) and num-dist
same top top -e sched:sched_switch,raw_syscalls:sys_enter -i 100000
same top-k top -e 'raw_syscalls:sys_enter//key=id/' -i 100000 --format csv
same nd num-dist -e 'sched:sched_switch//num=prev_prio/' -i 100000
# t830.3 two analyzers in one pass
same chain task-state --perins , top -e sched:sched_wakeup -i 100000
# t830.5 the latency engine (calls and delays across the cuts joined) and profile (stacks)
same sc syscalls --perins
same mt multi-trace -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -k common_pid --perins
same rd rundelay --perins
same prof profile -g

# t830.4 ground truth: each ctxsw thread was switched out at least K times
same sw top -e 'sched:sched_switch//key=prev_pid/' -i 100000 --format csv
for t in $(echo "$tids" | tr ',' ' '); do
	n=$(awk -v t="$t" -F, '$1 == t { print $2 }' sw.2)
	assert_ge "switches of ctxsw thread $t" $K "${n:-0}"
done
exit 0
