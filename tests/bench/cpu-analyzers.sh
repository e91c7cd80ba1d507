#!/bin/sh
# SPDX-License-Identifier: MIT
# cpu-analyzers.sh - throughput and peak RSS of pp-analyze profile and task-state on big
# captures, task-state side by side with `perf sched timehist` on the same workload.
#
# usage: [EVENTS="1000000 10000000"] [RUNS=3] [KEEP=1] sh tests/bench/cpu-analyzers.sh
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
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PP_BIN:-$top}
load=${PP_LOAD:-$top/build/load}
work=${BENCH_DIR:-$top/build/bench}/cpu
events=${EVENTS:-1000000 10000000}
runs=${RUNS:-3}
runstat=$top/build/bench/runstat

[ "$(id -u)" = 0 ] || { echo "cpu-analyzers: needs root" >&2; exit 1; }
mkdir -p "$work"
if [ ! -x "$runstat" ]; then
	mkdir -p "$(dirname "$runstat")"
	${CC:-cc} -O2 -o "$runstat" "$top/tests/bench/runstat.c"
fi
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
log() { echo "cpu-analyzers: $*" >&2; }
bg=""	# background loads and recorders, stopped on exit
trap 'for p in $bg; do kill "$p" 2>/dev/null; done' EXIT

# rs KEY: a value of the last RUNSTAT line in $work/rs.out
rs() { tr ' ' '\n' <"$work/rs.out" | sed -n "s/^$1=//p"; }

# measure CMD...: run CMD (stdout to /dev/null) $runs times; sets WALL CPU RSS_KB
measure() {
	WALL= CPU= RSS_KB=0
	i=0
	while [ $i -lt "$runs" ]; do
		"$runstat" -o "$work/rs.out" -- "$@" >/dev/null 2>"$work/err.out" ||
			{ cat "$work/err.out" >&2; log "failed: $*"; return 1; }
		w=$(rs wall_s)
		c=$(awk -v u="$(rs user_s)" -v s="$(rs sys_s)" 'BEGIN { printf "%.3f", u + s }')
		r=$(rs maxrss_kb)
		if [ -z "$WALL" ] || awk -v a="$w" -v b="$WALL" 'BEGIN { exit !(a < b) }'; then
			WALL=$w CPU=$c
		fi
		[ "$r" -gt "$RSS_KB" ] && RSS_KB=$r
		i=$((i + 1))
	done
}

# emit ANALYZER TOOL EVENTS CAPTURE_FILE ARGS: one JSON line from WALL CPU RSS_KB
emit() {
	size=$(stat -c %s "$4")
	awk -v load="$(cut -d' ' -f1 /proc/loadavg)" -v a="$1" -v t="$2" -v n="$3" -v sz="$size" -v w="$WALL" -v c="$CPU" -v r="$RSS_KB" \
	    -v args="$5" 'BEGIN {
		printf "{\"bench\":\"cpu-analyzers\",\"analyzer\":\"%s\",\"tool\":\"%s\",\"args\":\"%s\",", a, t, args
		printf "\"events\":%d,\"capture_mb\":%.1f,\"wall_s\":%.3f,\"cpu_s\":%.3f,", n, sz / 1048576, w, c
		printf "\"events_per_s\":%.0f,\"events_per_cpu_s\":%.0f,", (w > 0 ? n / w : 0), (c > 0 ? n / c : 0)
		printf "\"peak_rss_mb\":%.1f,\"loadavg\":%s}\n", r / 1024, load
	}'
}

pp_events() { "$bin/pp-analyze" "$1" info | sed -n 's/^events  *\([0-9]*\).*/\1/p'; }

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
	"$bin/pp-record" --for task-state -a -m 4096 -o "$ts" -- \
		"$load/ctxsw" -n $((n / 4)) -c 0 >/dev/null 2>"$work/rec.err" ||
		{ cat "$work/rec.err" >&2; exit 1; }
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true	# (INT is ignored in background jobs)
		wait "$pid" || true
	fi
	nev=$(pp_events "$ts")
	lost=$(sed -n 's/^ *lost: \([0-9]*\).*/\1/p' "$work/rec.err")
	log "task-state: $nev events, $lost lost"
	measure "$bin/pp-analyze" "$ts" task-state && emit task-state pp-analyze "$nev" "$ts" ""
	measure "$bin/pp-analyze" "$ts" task-state --perins &&
		emit task-state pp-analyze "$nev" "$ts" "--perins"
	if [ -n "$pid" ] && [ -s "$pd" ]; then
		pev=$(perf report -i "$pd" --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1)
		measure perf sched timehist -i "$pd" &&
			emit task-state "perf sched timehist" "${pev:-0}" "$pd" ""
		measure perf sched timehist -s -i "$pd" &&
			emit task-state "perf sched timehist" "${pev:-0}" "$pd" "-s"
	fi

	# --- profile -------------------------------------------------------------------------------
	pr=$work/profile-$n.ppcap
	secs=$((n / 25000 + 2))	# about 25-30k samples/s on a 2-CPU VM at -F 20000
	log "profile: recording cpu-clock -F 20000 -g -a for ${secs}s"
	"$load/cpuburn" -d "$secs" >/dev/null 2>&1 &
	b1=$!
	"$load/ctxsw" -n 100000000 >/dev/null 2>&1 &
	b2=$!
	bg="$bg $b1 $b2"
	"$bin/pp-record" -e cpu-clock -F 20000 -g -a -m 1024 --duration "$secs" -o "$pr" \
		>/dev/null 2>"$work/rec.err" || { cat "$work/rec.err" >&2; exit 1; }
	kill "$b2" 2>/dev/null || true
	wait "$b1" "$b2" 2>/dev/null || true
	nev=$(pp_events "$pr")
	log "profile: $nev samples"
	measure "$bin/pp-analyze" "$pr" profile -g && emit profile pp-analyze "$nev" "$pr" "-g"
	measure "$bin/pp-analyze" "$pr" profile -g --flame-graph "$work/fg.svg" &&
		emit profile pp-analyze "$nev" "$pr" "-g --flame-graph x.svg"
	measure "$bin/pp-analyze" "$pr" profile && emit profile pp-analyze "$nev" "$pr" ""
	[ -n "${KEEP:-}" ] || rm -f "$ts" "$pd" "$pr" "$work/fg.svg"
done
