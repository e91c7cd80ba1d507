#!/bin/sh
# SPDX-License-Identifier: MIT
# export.sh - bench stage: `pp-analyze export` throughput and peak memory.
#
# usage: [QUICK=1] [RUNS=N] [SIZES="1000000 10000000"] [FORMATS="chrome csv jsonl perfetto"] [OUT=/dev/null]
#        sh tests/bench/export.sh
# For each size, build/bench/fmtbench writes a synthetic sched_switch capture (a handful of
# tasks on 2 CPUs; the same capture the sqlpy stage reads, see bench_fmtbench_capture in
# lib.sh); each format is exported RUNS times (default 3, 1 with QUICK=1, which also uses
# SIZES="100000 1000000") to OUT (default /dev/null, so the disk is not measured; the
# output size comes from a byte count of one more export) under runstat.
# Prints one JSON line per (size, format):
#   {"stage":"export","format":"chrome","events":N,"wall_s":S,"cpu_s":S,
#    "events_per_s":N,"events_per_cpu_s":N,"maxrss_kb":N,"out_bytes":N,...}
# events_per_s is wall-clock throughput; on a loaded machine events_per_cpu_s (user+sys) is
# the steadier number.  Peak RSS must not grow with the number of events.
# Run by `make bench` as its stage `export` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
pp=$PP_BIN/pp-analyze
sizes=${SIZES:-"1000000 10000000"}
[ -n "$QUICK" ] && sizes=${SIZES:-"100000 1000000"}
formats=${FORMATS:-"chrome csv jsonl perfetto"}	# issue 10 asks for chrome and csv
out=${OUT:-/dev/null}

for n in $sizes; do
	cap=$(bench_fmtbench_capture "$n") || { bench_note "fmtbench -n $n failed"; exit 1; }
	for f in $formats; do
		if bench_measure /dev/null "$pp" "$cap" export --to "$f" -o "$out"; then
			bytes=$("$pp" "$cap" export --to "$f" -o - | wc -c)
			bench_emit_run stage=export format="$f" events="$n" out_bytes="$bytes"
		else
			bench_emit stage=export format="$f" events="$n" status=failed
		fi
	done
done
