#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh - bench: `pp-analyze FILE report` on big captures, the page's size and build time.
#
# usage: [QUICK=1] [RUNS=N] [SIZES="1000000 10000000"] sh tests/bench/report.sh
# For each size, report-capture.py describes a synthetic capture (per 10000 events: 4000
# cpu-clock samples with thousands of distinct call stacks, 3000 scheduler events among
# 200 threads, 3000 raw_syscalls events) that build/tests/capbuild writes under
# $BENCH_DIR/captures (kept).  The report is built RUNS times (default 3, 1 with QUICK=1,
# which also uses SIZES="1000000") under runstat; then, once each, the analyzers its
# sections run, one pass each, for the CPU time they take apart.
# Prints one JSON line per size and command:
#   {"stage":"report","what":"report","events":N,"wall_s":S,"cpu_s":S,"maxrss_kb":N,
#    "page_bytes":N,...}
# docs/performance.md ("The HTML report") has the numbers of a run.  Not a `make bench`
# stage yet: run it by hand.
set -u

. "$(dirname "$0")/lib.sh"
pp=$PP_BIN/pp-analyze
capbuild=$TOP/build/tests/capbuild
sizes=${SIZES:-"1000000 10000000"}
[ -n "$QUICK" ] && sizes=${SIZES:-"1000000"}
dir=$BENCH_DIR/captures
mkdir -p "$dir"
[ -x "$capbuild" ] || make -s -C "$TOP" all >&2
runs=$RUNS

for n in $sizes; do
	RUNS=$runs
	cap=$dir/report-$n.ppcap
	if [ ! -s "$cap" ]; then
		bench_note "building $cap"
		python3 "$TOP/tests/bench/report-capture.py" "$n" "$TOP/tests/fixtures/formats" >"$dir/report-$n.desc" &&
			"$capbuild" "$dir/report-$n.desc" "$cap" || { bench_note "capbuild failed"; exit 1; }
		rm -f "$dir/report-$n.desc"
	fi
	page=$BENCH_DIR/report-$n.html
	if bench_measure /dev/null "$pp" "$cap" report -o "$page"; then
		bench_emit_run stage=report what=report events="$n" page_bytes="$(wc -c <"$page")" \
			capture_bytes="$(wc -c <"$cap")"
	else
		bench_emit stage=report what=report events="$n" status=failed
	fi
	# the sections' analyzers, each in a pass of its own
	RUNS=1
	for a in "profile -e cpu-clock -g --flame-graph $BENCH_DIR/f.folded" "task-state" \
		"task-state --perins" "rundelay --perins --heatmap $BENCH_DIR/rd" \
		"syscalls --heatmap $BENCH_DIR/sc" "syscalls --perins" \
		"top -e cpu-clock,sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit -i 86400000"; do
		# shellcheck disable=SC2086
		bench_measure /dev/null "$pp" "$cap" $a -o /dev/null &&
			bench_emit_run stage=report what="$a" events="$n"
	done
	rm -f "$BENCH_DIR"/f.folded "$BENCH_DIR"/rd-*.lat "$BENCH_DIR"/sc-*.lat
done
