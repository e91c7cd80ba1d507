#!/bin/sh
# SPDX-License-Identifier: MIT
# parallel.sh - pp-analyze -j 1 against -j 2 on one ~10M-event capture (issue 19).
#
# usage: [RUNS=3] [QUICK=1] [KEEP=1] sh tests/bench/parallel.sh      (root)
# Two recordings of the project's loads on every CPU: ctxsw (scheduler events), syscalls
# (raw syscalls) and cpuburn, about 10M events each (1M with QUICK=1), one with cpu-clock -g
# samples (call stacks in every segment), one without.  Then top, task-state, syscalls,
# multi-trace and profile (with stacks only) run on them with -j 1 and -j 2, both with
# PP_READ_AHEAD=0 (one thread each for -j 1: the speedup is against one core), and -j 1 with
# read-ahead (what one pass got before -j, a decompression thread beside it).  The runs are
# interleaved - round r runs every analyzer at every setting before round r+1 - so that the
# load of a shared machine falls on all settings alike; the best wall time of the rounds and
# the largest peak RSS are kept.  -v tells whether the analyzer ran in parts (parts=N) or on
# one thread (parts=1: no state that joins yet).  crit_s: the critical path on free CPUs, the
# process's CPU time less its worker threads' but the busiest one's (-vv times each thread):
# on this VM every shell session is one autogroup of the scheduler, so two threads of one
# process get no more CPU than one while other sessions keep both CPUs busy, and the wall
# time ratio says little; the CPU ratio j1 / crit is the speedup two free CPUs would give.
# Lines: {"bench":"parallel","capture":"stacks"|"nostacks","analyzer":...,"setting":"j1"|"j2"|"j1-ra","events":N,
# "parts":N,"wall_s":..,"cpu_s":..,"maxrss_kb":..,"loadavg":..}; {"bench":"parallel-capture",...}.
# Run by `make bench` as its stage `parallel` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
work=$BENCH_DIR/parallel
mkdir -p "$work"
cd "$work" || exit 1
[ "$(id -u)" = 0 ] || { bench_emit bench=parallel status=skipped reason="needs root"; exit 0; }
n_ctx=${N_CTXSW:-600000}
n_sys=${N_SYSCALLS:-1800000}
burn_s=${BURN_S:-8}
if [ -n "$QUICK" ]; then
	n_ctx=50000 n_sys=150000 burn_s=2
fi
# record NAME EXTRA-EVENT-ARGS...: the loads on every CPU into NAME.ppcap
record() {
	_c=$work/$1.ppcap
	shift
	rm -f "$_c"
	bench_note "recording $(basename "$_c"): ctxsw -n $n_ctx, syscalls -n $n_sys, cpuburn ${burn_s}s $*"
	"$PP_BIN/pp-record" -a -m 4096 -q \
		-e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
		"$@" -o "$_c" -- sh -c "'$PP_LOAD/ctxsw' -n $n_ctx -c 0 &
			'$PP_LOAD/syscalls' -n $n_sys & '$PP_LOAD/cpuburn' -d $burn_s >/dev/null 2>&1; wait" \
		>rec.log 2>&1 || { bench_note "pp-record failed: $(tail -1 rec.log)"; exit 0; }
	bench_emit bench=parallel-capture capture="$(basename "$_c" .ppcap)" \
		events="$(bench_info "$_c" events)" \
		capture_mb="$(awk -v b="$(stat -c %s "$_c")" 'BEGIN { printf "%.1f", b / 1048576 }')" \
		segments="$("$PP_BIN/pp-analyze" "$_c" info | awk '$1 == "segments" { print $2 + 0 }')"
}
# "stacks": cpu-clock -g samples too, STACK records in every segment (a part skims what is
# before it: decompressed, samples skipped); "nostacks": the scheduler and syscall events only,
# most segments hold samples only and a part does not even read those before it
record stacks -e cpu-clock -F 2000 -g
record nostacks

# the analyzers, one a line: CAPTURE NAME ARGS (top's -i longer than the capture: one report)
cat >analyzers.txt <<'EOF'
stacks top top -e sched:sched_switch,raw_syscalls:sys_enter -i 1000000
stacks task-state task-state --perins
stacks syscalls syscalls --perins
stacks multi-trace multi-trace -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -k common_pid
stacks profile profile -g
nostacks top top -e sched:sched_switch,raw_syscalls:sys_enter -i 1000000
nostacks task-state task-state --perins
nostacks syscalls syscalls --perins
nostacks multi-trace multi-trace -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -k common_pid
EOF

# one CAPTURE NAME SETTING ARGS...: one run under runstat; its figures in rs.CAPTURE-NAME.SETTING
one() {
	_cap=$work/$1.ppcap _n=$1-$2 _s=$3
	shift 3
	case $_s in
	j1) _env="PP_READ_AHEAD=0" _j=1 ;;
	j2) _env="PP_READ_AHEAD=0" _j=2 ;;
	j1-ra) _env="PP_READ_AHEAD=1" _j=1 ;;
	esac
	env $_env "$RUNSTAT" -o rs.out -- "$PP_BIN/pp-analyze" -vv -j $_j "$_cap" "$@" \
		>"out.$_n.$_s" 2>"err.$_n.$_s" || { bench_note "$_n $_s failed: $(tail -1 "err.$_n.$_s")"; return 1; }
	# the critical path on free CPUs: the process's CPU time less its worker threads' but
	# the busiest one's
	_crit=$(awk -v rs="$(cat rs.out)" 'BEGIN { n = split(rs, a, " "); for (i = 1; i <= n; i++) {
			split(a[i], kv, "="); v[kv[1]] = kv[2] } cpu = v["user_s"] + v["sys_s"] }
		/^pp-analyze: thread [0-9]*: .* cpu / { c = $(NF - 1)
			sum += c; if (c > max) max = c }
		END { printf "%.3f", cpu - sum + max }' "err.$_n.$_s")
	echo "$(cat rs.out) load=$(bench_loadavg) crit=$_crit" >>"rs.$_n.$_s"
}

rm -f rs.*
r=0
while [ $r -lt "$RUNS" ]; do
	r=$((r + 1))
	bench_note "round $r of $RUNS"
	while read -r c name args; do
		for s in j1 j2 j1-ra; do
			# shellcheck disable=SC2086 # ARGS are words
			one "$c" "$name" $s $args
		done
	done <analyzers.txt
done
while read -r c name args; do
	events=$(bench_info "$work/$c.ppcap" events)
	n=$c-$name
	cmp -s "out.$n.j1" "out.$n.j2" || bench_note "$n: -j 2 printed other bytes than -j 1"
	parts=$(sed -n 's/.* in \([0-9]*\) parts$/\1/p' "err.$n.j2")
	for s in j1 j2 j1-ra; do
		[ -s "rs.$n.$s" ] || continue
		# best wall time, the CPU of that run, the largest RSS, the mean load
		set -- $(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (!best || v["wall_s"] < best) { best = v["wall_s"]; cpu = v["user_s"] + v["sys_s"] }
			if (v["maxrss_kb"] > rss) rss = v["maxrss_kb"]; load += v["load"]; n++
			if (!crit || v["crit"] < crit) crit = v["crit"] }
			END { printf "%s %.3f %d %.2f %d %.3f", best, cpu, rss, load / n, n, crit }' "rs.$n.$s")
		bench_emit bench=parallel capture="$c" analyzer="$name" setting="$s" events="$events" \
			parts="${parts:-1}" same="$(cmp -s "out.$n.j1" "out.$n.j2" && echo 1 || echo 0)" \
			wall_s="$1" cpu_s="$2" maxrss_kb="$3" loadavg="$4" runs="$5" crit_s="$6"
	done
done <analyzers.txt
[ -n "${KEEP:-}" ] || rm -f "$work/stacks.ppcap" "$work/nostacks.ppcap"
exit 0
