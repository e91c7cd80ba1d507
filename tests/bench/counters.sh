#!/bin/sh
# SPDX-License-Identifier: MIT
# counters.sh - benchmark of counting-mode recording (issue 17); one JSON object per line.
#
# usage: [QUICK=1] [PP_BIN=.] [PP_LOAD=build/load] [BENCH_DIR=build/bench] sh tests/bench/counters.sh
#
# For D seconds (10; 5 with QUICK=1) on every CPU, while a light load runs (the bursts
# generator: 2000 getppid every 20 ms):
#  - pp-record --for 'hrcount -e 4 tracepoints --period 1ms': the recorder's CPU time (user +
#    sys, as a share of one CPU over the run) and the capture's bytes per second;
#  - pp-record --for 'stat ... --period 100ms' (timer reads), the same;
#  - perf stat -I 10 -a on the same 4 events (perf's interval printing, the live reading
#    closest to perf-prof's: 10 ms is the shortest interval perf stat takes), its CPU time.
# {"bench":"counters","tool":T,"period_ms":P,"seconds":D,"cpu_pct":C,"bytes_per_s":B,...}
# Needs root.  Run by `make bench` as its stage `counters` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
bench_workdir counters
REC=$PP_BIN/pp-record
bench_need_root counters
D=10
[ -n "$QUICK" ] && D=5
EVENTS=sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,irq:softirq_entry

# one_run TOOL PERIOD_MS CMD...: the load meanwhile; emits the row
one_run() {
	tool=$1 period=$2
	shift 2
	"$PP_LOAD/bursts" -b 2000 -p 20 -n $((D * 50 + 50)) >/dev/null 2>&1 &
	lp=$!
	"$RUNSTAT" -o rs.txt -- "$@" >out.txt 2>"$BENCH_ERR"
	rc=$?
	kill $lp 2>/dev/null
	wait $lp 2>/dev/null
	rs=$(cat rs.txt)
	cpu=$(awk -v u="$(bench_kv user_s "$rs")" -v s="$(bench_kv sys_s "$rs")" -v d="$D" \
		'BEGIN { printf "%.3f", 100 * (u + s) / d }')
	bytes=0
	[ -f c.ppcap ] && bytes=$(stat -c %s c.ppcap)
	bench_emit bench=counters tool="$tool" period_ms="$period" seconds=$D rc=$rc \
		cpu_pct="$cpu" bytes=$bytes bytes_per_s=$((bytes / D)) \
		maxrss_kb="$(bench_kv maxrss_kb "$rs")" load="$(bench_loadavg)"
	rm -f c.ppcap
}

bench_note "hrcount, 4 counters, 1 ms, every CPU, ${D}s"
one_run pp-hrcount 1 "$REC" -q --for "hrcount -e $EVENTS --period 1ms" -a --duration $D -o c.ppcap
bench_note "stat, 4 counters, 100 ms timer reads"
one_run pp-stat 100 "$REC" -q --for "stat -e $EVENTS --period 100ms" -a --duration $D -o c.ppcap
if command -v perf >/dev/null 2>&1; then
	bench_note "perf stat -I 10"
	one_run perf-stat-I 10 perf stat -I 10 -a -e "$EVENTS" -x, -o /dev/null -- sleep $D
fi
