#!/bin/sh
# SPDX-License-Identifier: MIT
# import.sh - bench stage: reading a perf.data (issue 29) against perf script.
#
# usage: [QUICK=1] [RUNS=N] [COUNT=700000] [DATA=FILE] sh tests/bench/import.sh
# Records `perf record -e sched:sched_switch,sched:sched_wakeup -m 8192 -- ctxsw -n COUNT
# -c 1` (per-thread, build ids on: Debian's perf 6.1 dies in perf script on the system-wide
# -B -N files of a busy machine before their end; about 3.2 events per round trip, 2.2M
# at the default COUNT, 200000 with QUICK=1), then times on that file `perf script`,
# `pp-analyze FILE trace` and `pp-analyze FILE top -e sched:sched_switch -k prev_pid`
# (each converts the file on the fly), and `import -o` once.  DATA=FILE times an existing
# perf.data instead (Debian's perf 6.1 also dies at the end of some such recordings).
# Prints one JSON line per command:
#   {"stage":"import","bench":"trace","events":N,"wall_s":S,"cpu_s":S,...}
# Run by `make bench` as its stage `import` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
pp=$PP_BIN/pp-analyze
count=${COUNT:-700000}
[ -n "$QUICK" ] && count=${COUNT:-60000}
data=$BENCH_DIR/import.perf.data
# the same perf dies now and then at the end of a recording with build ids: three tries
[ -n "${DATA:-}" ] && data=$DATA
for _try in 1 2 3; do
	[ -n "${DATA:-}" ] && break
	rm -f "$data"
	perf record -q -m 8192 -e sched:sched_switch,sched:sched_wakeup -o "$data" -- \
		"$PP_LOAD/ctxsw" -n "$count" -c 1 >/dev/null 2>"$BENCH_DIR/import.rec.err" && break
	bench_note "perf record failed (try $_try): $(tail -1 "$BENCH_DIR/import.rec.err")"
	rm -f "$data"
done
[ -e "$data" ] || { bench_emit stage=import bench=record status=failed; exit 0; }
events=$("$pp" "$data" info 2>/dev/null | sed -n 's/^events *\([0-9]*\).*/\1/p')
[ -n "$events" ] || { bench_emit stage=import bench=info status=failed; exit 0; }
run() {	# NAME CMD...
	_name=$1
	shift
	if PP_JOBS=1 bench_measure /dev/null "$@"; then
		bench_emit_run stage=import bench="$_name" events="$events"
	else
		bench_emit stage=import bench="$_name" events="$events" status=failed
	fi
}
run perf-script perf script -i "$data"
run trace "$pp" "$data" trace
run top "$pp" "$data" top -e sched:sched_switch -k prev_pid
run import "$pp" "$data" import -o "$BENCH_DIR/import.ppcap"
[ -n "${DATA:-}" ] || rm -f "$data"
rm -f "$BENCH_DIR/import.ppcap"
