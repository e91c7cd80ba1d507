#!/bin/sh
# SPDX-License-Identifier: MIT
# recstack.sh - the recorder's half of stacks.sh alone: pp-record -F 997 --call-graph dwarf
# against perf record -B -N -F 997 --call-graph dwarf on tests/load/unwind-c and unwind-cxx,
# RUNS times each (interleaved, so the neighbours' load falls on both tools alike), without
# the unwinding and loss measurements.  For work on pp-record's cost a sample.
#
# usage: [RUNS=3] [STACK_S=8] [PP_ARGS='--zstd-level 3'] [PP_BASE=DIR] sh tests/bench/recstack.sh
# (root).  PP_BASE: a directory with another build's pp-record, measured in the same rounds as
# tool "pp-base" (before and after a change under the same neighbours).  ATTACH=1: the program
# runs on its own and the recorder attaches to it (-p PID) for STACK_S seconds, so runstat
# measures the recorder alone; no slowdown then (0), but no subtraction of two large CPU
# times either, whose noise on a shared VM is some 10 us a sample.
# Recorder CPU and slowdown as stacks.sh computes them: runstat's CPU of recorder and program
# less the program's own (its LOAD line); slowdown = the program's ops per CPU second alone
# over under the recorder.  Lines: {"bench":"recstack","program":P,"tool":"pp"|"pp-base"|"perf",
# "run":N,"samples":N,"bytes_per_sample":..,"rec_cpu_us_per_sample":..,"slowdown":..}, then
# per program and tool one "recstack-median" line of the runs' medians.
set -u

. "$(dirname "$0")/lib.sh"
bench_workdir recstack
bench_need_root recstack
secs=${STACK_S:-8}

lkv() { grep '^LOAD ' "$2" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
cpu_of() { awk -v u="$(lkv user_s "$1")" -v s="$(lkv sys_s "$1")" 'BEGIN { printf "%.4f", u + s }'; }

: >runs.txt
for run in $(seq 1 "$RUNS"); do
	for prog in unwind-c unwind-cxx; do
		"$PP_LOAD/$prog" -d "$secs" 2>base.err
		base=$(awk -v o="$(lkv ops base.err)" -v c="$(cpu_of base.err)" \
			'BEGIN { printf "%.0f", (c > 0 ? o / c : 0) }')
		for tool in pp ${PP_BASE:+pp-base} perf; do
			rm -f r.ppcap r.data
			if [ $tool != perf ]; then
				bin=$PP_BIN
				[ $tool = pp-base ] && bin=$PP_BASE
				# shellcheck disable=SC2086
				set -- "$bin/pp-record" -q -F 997 --call-graph dwarf ${PP_ARGS:-} -o r.ppcap
				cap=r.ppcap
			else
				set -- perf record -q -B -N -F 997 --call-graph dwarf -o r.data
				cap=r.data
			fi
			if [ -n "${ATTACH:-}" ]; then
				"$PP_LOAD/$prog" -d $((secs + 3)) 2>att.err &
				lp=$!
				sleep 1
				if [ $tool = perf ]; then
					set -- "$@" -p $lp -- sleep "$secs"
				else
					set -- "$@" -p $lp --duration "$secs"
				fi
				"$RUNSTAT" -o rs.txt -- "$@" >/dev/null 2>rec.err
				rc=$?
				wait $lp
			else
				"$RUNSTAT" -o rs.txt -- "$@" -- "$PP_LOAD/$prog" -d "$secs" >/dev/null 2>rec.err
				rc=$?
			fi
			if [ $rc != 0 ] || [ ! -s "$cap" ]; then
				bench_emit bench=recstack program=$prog tool=$tool status=failed
				continue
			fi
			if [ $tool = perf ]; then n=$(bench_perf_events $cap); else n=$(bench_info $cap events); fi
			rs=$(cat rs.txt)
			total=$(awk -v u="$(bench_kv user_s "$rs")" -v s="$(bench_kv sys_s "$rs")" \
				'BEGIN { printf "%.4f", u + s }')
			mine=$(cpu_of rec.err)
			[ -n "${ATTACH:-}" ] && mine=0
			ops=$(awk -v o="$(lkv ops rec.err)" -v c="$mine" 'BEGIN { printf "%.0f", (c > 0 ? o / c : 0) }')
			us=$(awk -v a="$total" -v b="$mine" -v n="${n:-0}" \
				'BEGIN { printf "%.1f", (n && a > b ? (a - b) * 1e6 / n : 0) }')
			slow=$(awk -v a="$base" -v b="$ops" 'BEGIN { printf "%.3f", (b ? a / b : 0) }')
			bps=$(awk -v b="$(stat -c %s $cap)" -v n="${n:-0}" 'BEGIN { printf "%.0f", (n ? b / n : 0) }')
			echo "$prog $tool $us $slow $bps" >>runs.txt
			bench_emit bench=recstack program=$prog tool=$tool run="$run" samples="${n:-0}" \
				bytes_per_sample="$bps" rec_cpu_us_per_sample="$us" slowdown="$slow" \
				loadavg="$(bench_loadavg)"
		done
	done
done
for prog in unwind-c unwind-cxx; do
	for tool in pp ${PP_BASE:+pp-base} perf; do
		sel() { awk -v p=$prog -v t=$tool -v f="$1" '$1 == p && $2 == t { print $f }' runs.txt | bench_median; }
		bench_emit bench=recstack-median program=$prog tool=$tool runs="$RUNS" \
			rec_cpu_us_per_sample="$(sel 3)" slowdown="$(sel 4)" bytes_per_sample="$(sel 5)"
	done
done
[ -n "${KEEP:-}" ] || rm -f r.ppcap r.data r.data.old
exit 0
