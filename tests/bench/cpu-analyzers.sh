#!/bin/sh
# SPDX-License-Identifier: MIT
# cpu-analyzers.sh - throughput and peak RSS of pp-analyze profile and task-state on big
# captures, task-state side by side with `perf sched timehist` on the same workload.
#
# usage: [EVENTS="1000000 10000000"] [RUNS=3] [QUICK=1] [KEEP=1] sh tests/bench/cpu-analyzers.sh
# Needs root.  For each size N:
#   task-state: a pipe ping-pong (ctxsw, both threads on CPU 0) runs once while
#     `pp-record --for task-state -a` and `perf sched record -a` record it together; then
#     `pp-analyze task-state` (also --perins) and `perf sched timehist` read their captures.
#   profile: `pp-record -e cpu-clock -F 20000 -g -a` while cpuburn and ctxsw run, long
#     enough for about N samples; then `pp-analyze profile -g` (and with an SVG flame graph).
# Each analysis runs RUNS times (default 3): the best wall time, the CPU time of that run
# and the largest peak RSS are kept.  On a shared machine the wall time depends on the
# load (loadavg is printed): events_per_cpu_s (user+sys) is the steadier figure.
# Prints one JSON object per line on stdout; progress goes to stderr.  Captures land in $BENCH_DIR/cpu (default build/bench/cpu), removed at
# the end unless KEEP=1.  10M events take about 10 minutes to record on a 2-CPU VM.
# QUICK=1: EVENTS="100000 500000" and RUNS=1.  Run by `make bench` as its stage `cpu`.
set -eu

. "$(dirname "$0")/lib.sh"
work=$BENCH_DIR/cpu
events=${EVENTS:-1000000 10000000}
[ -n "$QUICK" ] && events=${EVENTS:-100000 500000}

[ "$(id -u)" = 0 ] || { bench_emit bench=cpu-analyzers status=skipped reason="needs root"; exit 0; }
mkdir -p "$work"
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
log() { bench_note "$@"; }
bg=""	# background loads and recorders, stopped on exit
trap 'for p in $bg; do kill "$p" 2>/dev/null; done' EXIT

measure() { bench_measure /dev/null "$@"; }

# emit ANALYZER TOOL EVENTS CAPTURE_FILE ARGS: one JSON line from the last measure
emit() {
	bench_emit_run bench=cpu-analyzers analyzer="$1" tool="$2" args="$5" events="$3" \
		capture_mb="$(awk -v b="$(stat -c %s "$4")" 'BEGIN { printf "%.1f", b / 1048576 }')"
}

pp_events() { bench_info "$1" events; }

for n in $events; do
	# --- task-state and perf sched timehist on one ping-pong run ----------------------------
	ts=$work/task-state-$n.ppcap pd=$work/perf-sched-$n.data
	rm -f "$ts" "$pd"
	pid=
	if [ $have_perf = 1 ]; then
		# --no-buildid: perf 6.1 aborts collecting build ids of a busy machine
		perf sched record --no-buildid -a -o "$pd" -- sleep 100000 >/dev/null 2>"$work/perf.err" &
		pid=$!
		bg="$bg $pid"
		sleep 2
	fi
	log "task-state: recording ~$n sched events (ctxsw -n $((n / 4)))"
	"$PP_BIN/pp-record" --for task-state -a -m 4096 -o "$ts" -- \
		"$PP_LOAD/ctxsw" -n $((n / 4)) -c 0 >/dev/null 2>"$work/rec.err" ||
		{ cat "$work/rec.err" >&2; exit 1; }
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true	# (INT is ignored in background jobs)
		wait "$pid" || true
	fi
	nev=$(pp_events "$ts")
	lost=$(sed -n 's/^ *lost: \([0-9]*\).*/\1/p' "$work/rec.err")
	log "task-state: $nev events, $lost lost"
	measure "$PP_BIN/pp-analyze" "$ts" task-state && emit task-state pp-analyze "$nev" "$ts" ""
	measure "$PP_BIN/pp-analyze" "$ts" task-state --perins &&
		emit task-state pp-analyze "$nev" "$ts" "--perins"
	if [ -n "$pid" ] && [ -s "$pd" ]; then
		pev=$(bench_perf_events "$pd")
		measure perf sched timehist -i "$pd" &&
			emit task-state "perf sched timehist" "${pev:-0}" "$pd" ""
		measure perf sched timehist -s -i "$pd" &&
			emit task-state "perf sched timehist" "${pev:-0}" "$pd" "-s"
	fi

	# --- profile -------------------------------------------------------------------------------
	pr=$work/profile-$n.ppcap
	secs=$((n / 40000 + 2))	# about 40k samples/s on a 2-CPU VM at -F 20000 (2 x 20 kHz)
	log "profile: recording cpu-clock -F 20000 -g -a for ${secs}s"
	"$PP_LOAD/cpuburn" -d "$secs" >/dev/null 2>&1 &
	b1=$!
	"$PP_LOAD/ctxsw" -n 100000000 >/dev/null 2>&1 &
	b2=$!
	bg="$bg $b1 $b2"
	"$PP_BIN/pp-record" -e cpu-clock -F 20000 -g -a -m 1024 --duration "$secs" -o "$pr" \
		>/dev/null 2>"$work/rec.err" || { cat "$work/rec.err" >&2; exit 1; }
	kill "$b2" 2>/dev/null || true
	wait "$b1" "$b2" 2>/dev/null || true
	nev=$(pp_events "$pr")
	log "profile: $nev samples"
	measure "$PP_BIN/pp-analyze" "$pr" profile -g && emit profile pp-analyze "$nev" "$pr" "-g"
	measure "$PP_BIN/pp-analyze" "$pr" profile -g --flame-graph "$work/fg.svg" &&
		emit profile pp-analyze "$nev" "$pr" "-g --flame-graph x.svg"
	measure "$PP_BIN/pp-analyze" "$pr" profile && emit profile pp-analyze "$nev" "$pr" ""
	[ -n "${KEEP:-}" ] || rm -f "$ts" "$pd" "$pr" "$work/fg.svg"
done
