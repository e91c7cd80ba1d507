#!/bin/sh
# SPDX-License-Identifier: MIT
# t832-jobs-small-segments: pp-analyze -j N where the cuts fall inside intervals (issue 19).
# A built capture of 6 threads on 2 CPUs switching, sleeping (S, D), being preempted and
# woken at irregular times (a fixed pseudo-random sequence), renamed now and then, written in
# segments of a few records: every part boundary cuts stays, run delays and sleeps.  With
# 1 to 16 threads, task-state (every variant), top and num-dist print the same bytes as one
# thread, and the capture is really cut (-v: the number of parts).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
F=$TOP/tests/fixtures

{
	sed -n '/^kv\|^event\|^sync/p' "$F/cpu/synth-sched.desc" | sed "s|\.\./formats/|$F/formats/|"
	for t in 101 102 103 104 105 106; do echo "task $t $t 1 th$t"; done
	awk 'BEGIN {
		seed = 12345
		cur[0] = 101; cur[1] = 104; t = 1000000000000
		for (i = 0; i < 6000; i++) {
			seed = (seed * 1103515245 + 12345) % 2147483648
			t += 1000 + seed % 400000
			c = i % 2
			base = c ? 104 : 101
			nt = base + int(seed / 256) % 3
			if (nt == cur[c]) nt = base + ((nt - base + 1) % 3)
			st = int(seed / 4096) % 4; if (st == 3) st = 0; if (st == 2 && int(seed / 65536) % 3) st = 1
			name = "th" cur[c]; if (i > 3000 && cur[c] == 102) name = "renamed"
			nname = "th" nt; if (i > 3000 && nt == 102) nname = "renamed"
			printf "sample %d.%09d %d %d %d 1 prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%d next_comm=%s next_pid=%d next_prio=120\n", t / 1000000000, t % 1000000000, c, cur[c], cur[c], name, cur[c], st, nname, nt
			if (st) { sl[cur[c]] = 1 }
			cur[c] = nt
			if (int(seed / 1048576) % 2) {
				w = base + int(seed / 4194304) % 3
				if (sl[w] && w != cur[c]) {
					t += 500
					printf "sample %d.%09d %d %d %d 2 comm=th%d pid=%d prio=120 target_cpu=%d\n", t / 1000000000, t % 1000000000, c, cur[c], cur[c], w, w, c
					sl[w] = 0
				}
			}
			if (i == 3000) printf "comm %d.%09d 102 102 renamed\n", t / 1000000000, t % 1000000000 + 1
		}
	}'
} >mix.desc
"$CAPBUILD" -s 600 mix.desc mix.ppcap || fail "capbuild mix.desc"
"$PP_ANALYZE" mix.ppcap info | grep '^segments'

# same NAME ARGS...: every -j in 2..16 prints -j 1's bytes
same() {
	_n=$1
	shift
	"$PP_ANALYZE" -j 1 mix.ppcap "$@" >"$_n.1" 2>"$_n.err" || { cat "$_n.err"; fail "$_n exited $?"; }
	[ -s "$_n.1" ] || fail "$_n: nothing printed"
	for j in 2 3 5 8 16; do
		"$PP_ANALYZE" -v -j $j mix.ppcap "$@" >"$_n.$j" 2>"$_n.$j.err" ||
			{ cat "$_n.$j.err"; fail "$_n -j $j exited $?"; }
		cmp -s "$_n.1" "$_n.$j" || { diff -u "$_n.1" "$_n.$j" | head -30; fail "$_n: -j $j differs from -j 1"; }
	done
	parts=$(sed -n 's/.* in \([0-9]*\) parts/\1/p' "$_n.16.err")
	assert_ge "$_n: parts of -j 16" 10 "${parts:-0}"
	# more parts than threads, shared out as they go (what digests make the default)
	for jk in 2:7 3:5; do
		PP_PARTS_PER_JOB=${jk#*:} "$PP_ANALYZE" -v -j ${jk%:*} mix.ppcap "$@" >"$_n.s" 2>"$_n.s.err" ||
			{ cat "$_n.s.err"; fail "$_n -j ${jk%:*} in ${jk#*:} parts a thread exited $?"; }
		cmp -s "$_n.1" "$_n.s" || { diff -u "$_n.1" "$_n.s" | head -30; fail "$_n: -j $jk differs from -j 1"; }
	done
}
same ts task-state
same ts-perins task-state --perins
same ts-s task-state --perins -S
same ts-d task-state --perins -D
same ts-noint task-state --perins --no-interruptible
same ts-p task-state --perins -p 102
same ts-csv task-state --perins --format csv
same top top -e sched:sched_switch,sched:sched_wakeup -i 100000
same top-comm top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/' -i 100000
same nd num-dist -e 'sched:sched_switch//num=prev_state/' -i 100000
# the threads' stays are there to be joined: every thread slept and ran many times
for t in 101 102 103 104 105 106; do
	n=$(awk -v t="$t" '$1 == t && $3 == "S" { print $4 }' ts-perins.1)
	assert_ge "S stays of thread $t" 100 "${n:-0}"
done
exit 0
