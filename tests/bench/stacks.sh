#!/bin/sh
# SPDX-License-Identifier: MIT
# stacks.sh - DWARF call stacks (issue 28): pp-record --call-graph dwarf against
# perf record -B -N --call-graph dwarf on the same programs in one run.
#
# usage: [RUNS=3] [QUICK=1] sh tests/bench/stacks.sh      (root)
# The programs are tests/load/unwind-c and unwind-cxx (no frame pointers, a shared library,
# a libc callback; t140/t141), STACK_S seconds each (20; 3 with QUICK=1: an analysis has a
# fixed cost - the binaries' DWARF for inline frames, the kernel symbols - that a few
# seconds of samples do not outweigh, for perf script as for pp).  Per program and tool:
#   record   the program alone under the recorder (runstat: CPU of recorder + program); the
#            program's LOAD line gives its own CPU time and its ops (sort rounds), so recorder
#            CPU = total - program's, and slowdown = the program's ops per CPU second alone /
#            under the recorder (per CPU second: on a shared VM the program's share of the CPUs
#            varies from run to run); bytes per sample = capture bytes / samples
#   unwind   pp-analyze CAPTURE profile -g (-j 1, no read-ahead) against perf script -i
#            perf.data >/dev/null: samples per CPU second; each tool twice, as it comes (both
#            print inline frames by default: perf 6.1's --inline is on unless --no-inline) and
#            with --no-inline (tool names pp--no-inline, perf-script--no-inline); the four
#            run in turn, in 3 x RUNS rounds (the VM's speed drifts from one second to the
#            next: so it falls on both tools alike), each judged on its least CPU time
#   slowdown the program's ops per CPU second alone over under each recorder again, in
#            SLOW_RUNS rounds (5) of SLOW_S seconds (4) - alone, pp, perf; the tools' order
#            turns each round - each round against its own run alone, the median of the
#            rounds: the VM's speed drifts by several percent over a minute, and the single
#            runs above moved the ratio from 0.97 to 1.07 between stage runs
# and once: "fixed", the same two on a 1-second recording of unwind-c (what an analysis
# costs before its samples: the CPU time of that run); "jobs", pp-analyze -j 1 and -j 2
# (profile -g, no read-ahead) on a capture worth splitting: unwind-c at 4999 Hz for 4 x
# STACK_S seconds (wall and CPU time), in rounds with two -j 1 side by side (pp-2xj1: what two
# CPUs of this machine give two processes, the ceiling of -j 2 on it) and each CPU's speed
# before and after (cpuburn pinned to it: ops in 0.3 s; this VM's CPUs are at times unequal,
# one at half the other's speed for minutes), and both -j on a quarter as long a recording
# (pp-j1-short, pp-j2-short: the difference is the samples' cost, the start left out); "sysw": every CPU busy (one unwind-c per CPU) recorded
# system-wide at 997 Hz by each tool: samples lost.
# Lines: {"bench":"stacks-record","program":P,"tool":"pp"|"perf","samples":N,"bytes":N,
# "bytes_per_sample":..,"rec_cpu_s":..,"rec_cpu_us_per_sample":..,"ops":N,"base_ops":N,
# "slowdown":..} (ops and base_ops per CPU second); {"bench":"stacks-unwind","program":P,"tool":"pp"|"perf-script",
# "events":N,"wall_s":..,"cpu_s":..,...}; {"bench":"stacks-fixed","tool":"pp"|"perf-script",...}
# and {"bench":"stacks-jobs","tool":"pp-j1"|"pp-j2"|"pp-2xj1"|"pp-j1-short"|"pp-j2-short",...}
# (the same keys);
# {"bench":"stacks-cpus","when":"before"|"after","ops":"OPS0,OPS1,..","slowest":min/max};
# {"bench":"stacks-lost","tool":..,"samples":N,"lost":N};
# {"bench":"stacks-slowdown","program":P,"tool":"pp"|"perf","slowdown":median,"rounds":"a,b,.."}.
# Run by `make bench` as its stage `stacks` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
bench_workdir stacks
[ "$(id -u)" = 0 ] || { bench_emit bench=stacks status=skipped reason="needs root"; exit 0; }
secs=${STACK_S:-20}
[ -n "$QUICK" ] && secs=3
ncpu=$(getconf _NPROCESSORS_ONLN)

# ops_of FILE: the ops= and user_s+sys_s of the LOAD line in FILE
load_ops() { grep '^LOAD ' "$1" | tail -1 | tr ' ' '\n' | sed -n 's/^ops=//p'; }
load_cpu() {
	_l=$(grep '^LOAD ' "$1" | tail -1)
	awk -v u="$(bench_kv user_s "$_l")" -v s="$(bench_kv sys_s "$_l")" 'BEGIN { printf "%.3f", u + s }'
}
# cpu_speeds WHEN: a stacks-cpus line, cpuburn's ops in 0.3 s pinned to each CPU in turn
cpu_speeds() {
	_ops=
	for _c in $(seq 0 $((ncpu - 1))); do
		"$PP_LOAD/cpuburn" -d 0.3 -c "$_c" >/dev/null 2>burn.err || return 0
		_ops="${_ops:+$_ops,}$(load_ops burn.err)"
	done
	bench_emit bench=stacks-cpus when="$1" ops="$_ops" slowest="$(echo "$_ops" | tr ',' '\n' |
		awk 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 } END { printf "%.3f", hi ? lo / hi : 0 }')"
}
# load_rate FILE: the ops per CPU second of the LOAD line in FILE (0 without one)
load_rate() {
	awk -v o="$(load_ops "$1")" -v c="$(load_cpu "$1")" \
		'BEGIN { printf "%.0f", (c > 0 ? o / c : 0) }'
}
rs_cpu() {
	_r=$(cat "$1")
	awk -v u="$(bench_kv user_s "$_r")" -v s="$(bench_kv sys_s "$_r")" 'BEGIN { printf "%.3f", u + s }'
}
perf_lost() {
	perf report -i "$1" --stats 2>/dev/null | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}

# measure_rounds ROUNDS SPEC...: each SPEC "TAG|CMD..." (CMD split at spaces) run once a
# round, in turn, for ROUNDS rounds: the VM's speed drifts from one second to the next, and
# so it falls on every command alike; a run's wall, CPU and peak RSS go to rounds.TAG
measure_rounds() {
	_rounds=$1
	shift
	for _spec in "$@"; do : >"rounds.${_spec%%|*}"; done
	for _r in $(seq 1 "$_rounds"); do
		for _spec in "$@"; do
			# shellcheck disable=SC2086
			RUNS=1 BENCH_MIN_S=0 bench_measure /dev/null ${_spec#*|} || return
			echo "$WALL $CPU $RSS_KB" >>"rounds.${_spec%%|*}"
		done
	done
}
# rounds_of TAG: WALL (the best), CPU (of that run), CPU_MIN, RSS_KB (the largest) and
# MEASURED_RUNS of rounds.TAG, for bench_emit_run
rounds_of() {
	# shellcheck disable=SC2046
	set -- $(awk 'NR == 1 || $1 < w { w = $1; c = $2 } NR == 1 || $2 < m { m = $2 }
		$3 > r { r = $3 } END { print w, c, m, r + 0, NR }' "rounds.$1")
	WALL=$1 CPU=$2 CPU_MIN=$3 RSS_KB=$4 MEASURED_RUNS=$5
}
# measure_unwinding PPCAP PERFDATA: the four analyses of one program's captures, in turn
# (tags pp, perf-script, pp--no-inline, perf-script--no-inline), 3 x RUNS rounds
measure_unwinding() {
	measure_rounds $((RUNS * 3)) \
		"pp|env PP_READ_AHEAD=0 $PP_BIN/pp-analyze -j 1 $1 profile -g" \
		"perf-script|perf script -i $2" \
		"pp--no-inline|env PP_READ_AHEAD=0 $PP_BIN/pp-analyze -j 1 $1 profile -g --no-inline" \
		"perf-script--no-inline|perf script --no-inline -i $2"
}

for prog in unwind-c unwind-cxx; do
	[ -x "$PP_LOAD/$prog" ] || { bench_emit bench=stacks-record program=$prog status=skipped \
		reason="no $PP_LOAD/$prog: run make"; continue; }
	"$PP_LOAD/$prog" -d "$secs" 2>base.err
	base=$(load_rate base.err)
	rm -f "$prog.ppcap" "$prog.data"
	for tool in pp perf; do
		if [ $tool = pp ]; then
			set -- "$PP_BIN/pp-record" -q -F 997 --call-graph dwarf -o "$prog.ppcap"
			cap=$prog.ppcap
		else
			set -- perf record -q -B -N -F 997 --call-graph dwarf -o "$prog.data"
			cap=$prog.data
		fi
		if ! "$RUNSTAT" -o rs.txt -- "$@" -- "$PP_LOAD/$prog" -d "$secs" >/dev/null 2>rec.err ||
			[ ! -s "$cap" ]; then
			bench_emit bench=stacks-record program=$prog tool=$tool status=failed \
				reason="$(grep -v '^LOAD' rec.err | tail -1)"
			continue
		fi
		if [ $tool = pp ]; then
			n=$(bench_info "$cap" events)
			n_pp=$n
		else
			n=$(bench_perf_events "$cap")
			n_perf=$n
		fi
		bytes=$(stat -c %s "$cap")
		total=$(rs_cpu rs.txt)
		mine=$(load_cpu rec.err)
		ops=$(load_rate rec.err)
		rec=$(awk -v a="$total" -v b="$mine" 'BEGIN { printf "%.3f", (a > b ? a - b : 0) }')
		bench_emit bench=stacks-record program=$prog tool=$tool samples="${n:-0}" bytes="$bytes" \
			bytes_per_sample="$(awk -v b="$bytes" -v n="${n:-0}" 'BEGIN { printf "%.0f", n ? b / n : 0 }')" \
			rec_cpu_s="$rec" \
			rec_cpu_us_per_sample="$(awk -v c="$rec" -v n="${n:-0}" 'BEGIN { printf "%.1f", n ? c * 1e6 / n : 0 }')" \
			ops="${ops:-0}" base_ops="${base:-0}" \
			slowdown="$(awk -v a="${base:-0}" -v b="${ops:-0}" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" \
			loadavg="$(bench_loadavg)"
	done
	# unwinding speed, with inline frames (both tools' default) and without (--no-inline)
	[ -s "$prog.ppcap" ] && [ -s "$prog.data" ] || continue
	measure_unwinding "$prog.ppcap" "$prog.data" || continue
	for t in pp pp--no-inline perf-script perf-script--no-inline; do
		rounds_of $t
		n=$n_pp
		case $t in perf*) n=$n_perf ;; esac
		bench_emit_run bench=stacks-unwind program=$prog tool=$t events="$n"
	done
done

# the fixed cost: a 1-second recording of unwind-c analyzed by each tool
if [ -x "$PP_LOAD/unwind-c" ]; then
	rm -f fixed.ppcap fixed.data
	if "$PP_BIN/pp-record" -q -F 997 --call-graph dwarf -o fixed.ppcap -- "$PP_LOAD/unwind-c" -d 1 \
		>/dev/null 2>&1 &&
		perf record -q -B -N -F 997 --call-graph dwarf -o fixed.data -- "$PP_LOAD/unwind-c" \
			-d 1 >/dev/null 2>&1 &&
		measure_unwinding fixed.ppcap fixed.data; then
		for t in pp pp--no-inline perf-script perf-script--no-inline; do
			rounds_of $t
			case $t in
			perf*) n=$(bench_perf_events fixed.data) ;;
			*) n=$(bench_info fixed.ppcap events) ;;
			esac
			bench_emit_run bench=stacks-fixed tool=$t events="$n"
		done
	else
		bench_emit bench=stacks-fixed tool=pp status=failed reason="recording or analysis failed"
	fi
	# -j 2 against -j 1 on a capture worth splitting: 4 times as long (400,000 samples; on
	# a 20 s one the start - the kernel's symbols, libc's DWARF - is a third of -j 1's time),
	# in 7 rounds at least (best wall: the neighbours of this shared VM move it)
	# and a quarter of it (jobs-short.ppcap): what the longer one takes more is the samples'
	# own cost, without the start (the kernel symbols, the binaries' tables, the parts'
	# opening) that both pay alike
	rm -f jobs.ppcap jobs-short.ppcap
	if "$PP_BIN/pp-record" -q -F 4999 --call-graph dwarf -o jobs.ppcap -- "$PP_LOAD/unwind-c" \
		-d "$((secs * 4))" >/dev/null 2>&1 &&
	   "$PP_BIN/pp-record" -q -F 4999 --call-graph dwarf -o jobs-short.ppcap -- \
		"$PP_LOAD/unwind-c" -d "$secs" >/dev/null 2>&1; then
		n=$(bench_info jobs.ppcap events)
		ns=$(bench_info jobs-short.ppcap events)
		rounds=$RUNS
		[ "$rounds" -lt 7 ] && rounds=7
		an="env PP_READ_AHEAD=0 $PP_BIN/pp-analyze"
		j1="$an -j 1 jobs.ppcap profile -g"
		printf '%s >/dev/null &\n%s >/dev/null\nwait\n' "$j1" "$j1" >two.sh
		cpu_speeds before
		if measure_rounds "$rounds" "pp-j1|$j1" "pp-j2|$an -j 2 jobs.ppcap profile -g" \
			"pp-2xj1|sh two.sh" "pp-j1-short|$an -j 1 jobs-short.ppcap profile -g" \
			"pp-j2-short|$an -j 2 jobs-short.ppcap profile -g"; then
			for t in j1 j2 2xj1; do
				rounds_of pp-$t
				bench_emit_run bench=stacks-jobs tool=pp-$t events="$n"
			done
			for t in j1 j2; do
				rounds_of pp-$t-short
				bench_emit_run bench=stacks-jobs tool=pp-$t-short events="$ns"
			done
		fi
		cpu_speeds after
	else
		bench_emit bench=stacks-jobs tool=pp status=failed reason="pp-record failed"
	fi
fi

# the workload's slowdown, interleaved rounds (see the head of this file)
slow_s=${SLOW_S:-4}
[ -n "$QUICK" ] && slow_s=1
for prog in unwind-c unwind-cxx; do
	[ -x "$PP_LOAD/$prog" ] || continue
	: >slow.txt
	for run in $(seq 1 "${SLOW_RUNS:-5}"); do
		"$PP_LOAD/$prog" -d "$slow_s" 2>base.err
		base=$(load_rate base.err)
		order="pp perf"
		[ $((run % 2)) = 0 ] && order="perf pp"
		for tool in $order; do
			rm -f slow.ppcap slow.data
			if [ $tool = pp ]; then
				set -- "$PP_BIN/pp-record" -q -F 997 --call-graph dwarf -o slow.ppcap
			else
				set -- perf record -q -B -N -F 997 --call-graph dwarf -o slow.data
			fi
			"$@" -- "$PP_LOAD/$prog" -d "$slow_s" >/dev/null 2>rec.err || continue
			ops=$(load_rate rec.err)
			awk -v t=$tool -v a="${base:-0}" -v b="${ops:-0}" \
				'BEGIN { if (a > 0 && b > 0) printf "%s %.3f\n", t, a / b }' >>slow.txt
		done
	done
	for tool in pp perf; do
		grep -q "^$tool " slow.txt || continue
		bench_emit bench=stacks-slowdown program=$prog tool=$tool \
			slowdown="$(awk -v t=$tool '$1 == t { print $2 }' slow.txt | bench_median)" \
			rounds="$(awk -v t=$tool '$1 == t { printf "%s%s", s, $2; s = "," }' slow.txt)"
	done
done

# samples lost at 997 Hz on every CPU: one unwind-c per CPU, recorded system-wide
busy="i=0; while [ \$i -lt $ncpu ]; do '$PP_LOAD/unwind-c' -d $secs 2>/dev/null & i=\$((i + 1)); done; wait"
rm -f sysw.ppcap sysw.data
if "$PP_BIN/pp-record" -q -a -F 997 --call-graph dwarf -o sysw.ppcap -- sh -c "$busy" 2>sysw.err; then
	bench_emit bench=stacks-lost tool=pp cpus="$ncpu" samples="$(bench_info sysw.ppcap events)" \
		lost="$(bench_info sysw.ppcap lost)"
else
	bench_emit bench=stacks-lost tool=pp status=failed reason="$(tail -1 sysw.err)"
fi
if perf record -q -B -N -a -F 997 --call-graph dwarf -o sysw.data -- sh -c "$busy" 2>sysw.err; then
	bench_emit bench=stacks-lost tool=perf cpus="$ncpu" samples="$(bench_perf_events sysw.data)" \
		lost="$(perf_lost sysw.data)"
else
	bench_emit bench=stacks-lost tool=perf status=failed reason="$(tail -1 sysw.err)"
fi
[ -n "${KEEP:-}" ] || rm -f ./*.ppcap ./*.data ./*.data.old
exit 0
