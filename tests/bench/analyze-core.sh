#!/bin/sh
# SPDX-License-Identifier: MIT
# analyze-core.sh - decoding and aggregation throughput of pp-analyze, one JSON object a line.
#
# usage: sh tests/bench/analyze-core.sh [DIR]      (root; QUICK=1 for smaller workloads)
#
# 1. The same workload recorded at the same time by pp-record, perf record and (when it can
#    run here) trace-cmd record: scheduler events of ctxsw, then raw syscalls of syscalls.
#    Each capture is decoded to /dev/null: `pp-analyze trace`, `perf script`,
#    `trace-cmd report`; and aggregated by `pp-analyze top`.  Rates are events of the
#    tool's own capture divided by the CPU time (user+sys) of its decoder; wall times are
#    printed too (on a busy machine they are longer).
# 2. top (and num-dist) on synthetic captures of 1M and 10M events (capbuild repeat blocks): events/s and
#    peak RSS, which must not grow with the capture.
# Each measured command runs RUNS times (default 3, 1 with QUICK=1) under runstat: the best
# wall time, the CPU time of that run and the largest peak RSS are kept (tests/bench/lib.sh).
# Lines: {"bench":"decode"|"top-size", "workload":..., "tool":..., "events":N, "cpu_s":..,
# "wall_s":.., "events_per_cpu_s":.., "events_per_s":.., "maxrss_kb":.., "loadavg":..}.
# Run by `make bench` as its stage `core` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
CAPBUILD=${PP_CAPBUILD:-$TOP/build/tests/capbuild}
dir=${1:-$BENCH_DIR/core}
mkdir -p "$dir"
cd "$dir" || exit 1
n_ctx=${N_CTXSW:-1000000}
n_sys=${N_SYSCALLS:-1000000}
big="1000000 10000000"
if [ -n "$QUICK" ]; then
	n_ctx=50000
	n_sys=50000
	big="100000 1000000"
fi
# lib.sh sets PP_READ_AHEAD=0 (the targets are per core); `top` runs once more as a user gets it
# on this 2-CPU machine, decompressing ahead on a second thread.
emit() { bench_emit_of workload "$@"; }	# bench workload tool events

# record NAME EVENTS(comma list) LOAD...: the three recorders around one run of LOAD
record() {
	name=$1 events=$2
	shift 2
	tc_ev=$(echo "$events" | sed 's/^/-e /; s/,/ -e /g')
	rm -f "$name.ppcap" "$name.perf" "$name.perf.old" "$name.dat"
	"$PP_BIN/pp-record" -e "$events" -a -m 4096 -o "$name.ppcap" >"rec-$name-pp.log" 2>&1 &
	pp_pid=$!
	perf record -q -B --buildid-mmap -e "$events" -a -m 4096 -o "$name.perf" >"rec-$name-perf.log" 2>&1 &
	perf_pid=$!
	tc_pid=
	if command -v trace-cmd >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # tc_ev is a list of options
		# a command bounds the recording: a background trace-cmd ignores SIGINT
		rm -f "stop-$name"
		bench_tracecmd record -b 65536 $tc_ev -o "$name.dat" \
			sh -c "while [ ! -e stop-$name ]; do sleep 0.1; done" >"rec-$name-tc.log" 2>&1 &
		tc_pid=$!
	fi
	sleep 2
	"$@" >"load-$name.log" 2>&1
	sleep 1
	kill -INT $pp_pid $perf_pid 2>/dev/null
	touch "stop-$name"
	wait
}

decode() {	# NAME TOP-EVENTS
	name=$1
	ev=$(bench_info "$name.ppcap" events)
	bench_measure_tag "$name-pp" "$PP_BIN/pp-analyze" "$name.ppcap" trace -o /dev/null &&
		emit decode "$name" "pp-analyze trace" "$ev"
	bench_measure_tag "$name-top" "$PP_BIN/pp-analyze" "$name.ppcap" top -e "$2" &&
		emit decode "$name" "pp-analyze top" "$ev"
	bench_measure_tag "$name-top-ra" env PP_READ_AHEAD=1 "$PP_BIN/pp-analyze" "$name.ppcap" top -e "$2" &&
		emit decode "$name" "pp-analyze top, read ahead (2 threads)" "$ev"
	if [ -s "$name.perf" ]; then
		pev=$(perf script -i "$name.perf" 2>/dev/null | wc -l)
		bench_measure_tag "$name-perf" perf script -i "$name.perf" && emit decode "$name" "perf script" "$pev"
	fi
	if [ -s "$name.dat" ]; then
		tev=$(trace-cmd report -i "$name.dat" 2>/dev/null | grep -c ': [a-z_]*: ')
		bench_measure_tag "$name-tc" trace-cmd report -i "$name.dat" &&
			emit decode "$name" "trace-cmd report" "$tev"
	else
		bench_note "trace-cmd could not record here ($(tail -1 "rec-$name-tc.log" 2>/dev/null))"
	fi
}

[ "$(id -u)" = 0 ] || { bench_emit bench=core status=skipped reason="needs root"; exit 0; }

record sched sched:sched_switch,sched:sched_wakeup "$PP_LOAD/ctxsw" -n "$n_ctx" -c 0
decode sched sched:sched_switch,sched:sched_wakeup
record sys raw_syscalls:sys_enter,raw_syscalls:sys_exit "$PP_LOAD/syscalls" -n "$n_sys"
decode sys raw_syscalls:sys_enter,raw_syscalls:sys_exit

# top on synthetic captures: a scheduler pattern of 8 events over 5 threads, repeated
f=$TOP/tests/fixtures/formats
for n in $big; do
	cat >big.desc <<EOF
event 1 sched:sched_switch $f/sched_switch.format
event 2 sched:sched_wakeup $f/sched_wakeup.format
task 100 100 1 app
task 100 101 1 app-worker
task 200 200 1 db
task 200 201 1 db-writer
task 300 300 1 web
sync 0 1767225600000000000
repeat $((n / 8)) 8000
sample 1000 0 100 100 2 comm=app-worker pid=101 prio=120 target_cpu=1
sample 2000 0 100 100 1 prev_comm=app prev_pid=100 prev_prio=120 prev_state=1 next_comm=db next_pid=200 next_prio=120
sample 3000 1 100 101 1 prev_comm=app-worker prev_pid=101 prev_prio=120 prev_state=0 next_comm=web next_pid=300 next_prio=120
sample 4000 0 200 200 2 comm=db-writer pid=201 prio=120 target_cpu=0
sample 5000 0 200 200 1 prev_comm=db prev_pid=200 prev_prio=120 prev_state=1 next_comm=db-writer next_pid=201 next_prio=120
sample 6000 1 300 300 1 prev_comm=web prev_pid=300 prev_prio=120 prev_state=1 next_comm=app next_pid=100 next_prio=120
sample 7000 0 200 201 1 prev_comm=db-writer prev_pid=201 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
sample 7500 1 100 100 2 comm=web pid=300 prio=120 target_cpu=1
end
EOF
	"$CAPBUILD" big.desc "big$n.ppcap" || { bench_note "capbuild failed"; continue; }
	bench_measure_tag "top-$n" "$PP_BIN/pp-analyze" "big$n.ppcap" top -e sched:sched_switch,sched:sched_wakeup &&
		emit top-size "synthetic-$n" "pp-analyze top (key: thread)" "$n"
	bench_measure_tag "topk-$n" "$PP_BIN/pp-analyze" "big$n.ppcap" top \
		-e 'sched:sched_switch//key=prev_pid/top-by=prev_prio/,sched:sched_wakeup//key=pid/' &&
		emit top-size "synthetic-$n" "pp-analyze top (key=EXPR, top-by=EXPR)" "$n"
	bench_measure_tag "numd-$n" "$PP_BIN/pp-analyze" "big$n.ppcap" num-dist \
		-e 'sched:sched_switch//num=prev_prio/' &&
		emit top-size "synthetic-$n" "pp-analyze num-dist (num=EXPR)" "$n"
	bench_measure_tag "trace-$n" "$PP_BIN/pp-analyze" "big$n.ppcap" trace -o /dev/null &&
		emit top-size "synthetic-$n" "pp-analyze trace" "$n"
	rm -f "big$n.ppcap"
done
bench_note "captures left in $dir"
