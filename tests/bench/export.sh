#!/bin/sh
# SPDX-License-Identifier: MIT
# export.sh - bench stage: `pp-analyze export` throughput and peak memory.
#
# usage: [SIZES="1000000 10000000"] [FORMATS="chrome csv"] [OUT=/dev/null] sh tests/bench/export.sh
# For each size, build/bench/fmtbench writes a synthetic sched_switch capture (a handful of
# tasks on 2 CPUs); each format is exported once to OUT (default /dev/null, so the disk is
# not measured; the output size comes from a byte count of the same export) under runstat.
# Prints one JSON line per (size, format):
#   {"stage":"export","format":"chrome","events":N,"wall_s":S,"cpu_s":S,
#    "events_per_s":N,"events_per_cpu_s":N,"maxrss_kb":N,"out_bytes":N}
# events_per_s is wall-clock throughput; on a loaded machine events_per_cpu_s (user+sys) is
# the steadier number.  Peak RSS must not grow with the number of events.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
bench_dir=${BENCH_DIR:-$top/build/bench}
pp=${PP_BIN:-$top}/pp-analyze
sizes=${SIZES:-"1000000 10000000"}
formats=${FORMATS:-"chrome csv"}
out=${OUT:-/dev/null}

[ -x "$pp" ] && [ -x "$bench_dir/fmtbench" ] || make -s -C "$top" all
mkdir -p "$bench_dir"
if [ ! -x "$bench_dir/runstat" ]; then
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -o "$bench_dir/runstat" \
		"$top/tests/bench/runstat.c"
fi

for n in $sizes; do
	dir=$bench_dir/export-$n
	mkdir -p "$dir"
	[ -s "$dir/fmtbench.ppcap" ] || "$bench_dir/fmtbench" -n "$n" -o "$dir" >/dev/null
	rm -f "$dir/raw.bin"
	for f in $formats; do
		"$bench_dir/runstat" -o "$dir/runstat.txt" -- "$pp" "$dir/fmtbench.ppcap" export \
			--to "$f" -o "$out"
		bytes=$("$pp" "$dir/fmtbench.ppcap" export --to "$f" -o - | wc -c)
		awk -v n="$n" -v f="$f" -v bytes="$bytes" '
		{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			cpu = v["user_s"] + v["sys_s"]
			if (cpu <= 0) cpu = 0.001
			if (v["wall_s"] <= 0) v["wall_s"] = 0.001
			printf "{\"stage\":\"export\",\"format\":\"%s\",\"events\":%.0f,", f, n
			printf "\"wall_s\":%.3f,\"cpu_s\":%.3f,", v["wall_s"], cpu
			printf "\"events_per_s\":%.0f,", n / v["wall_s"]
			printf "\"events_per_cpu_s\":%.0f,", n / cpu
			printf "\"maxrss_kb\":%d,\"out_bytes\":%.0f,", v["maxrss_kb"], bytes
			printf "\"rc\":%d}\n", v["rc"]
		}' "$dir/runstat.txt"
	done
done
