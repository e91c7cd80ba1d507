#!/bin/sh
# SPDX-License-Identifier: MIT
# fleet.sh - bench stage: `pp fleet` over 20 captures on 1 and 2 Dask workers, against the
# serial loop over pp-analyze (issue 19 part 2).
#
# usage: [QUICK=1] [RUNS=N] [CAPTURES=20] [EVENTS=5000000] sh tests/bench/fleet.sh
# CAPTURES synthetic sched_switch captures of EVENTS events each (build/bench/fmtbench, one
# run each: distinct captures, as merges want; QUICK: 1000000 events) are analysed by
# `top -e 'sched:sched_switch//key=prev_pid/'` three ways, each RUNS times under runstat:
#   serial    a shell loop: pp-analyze CAPTURE top ... --state-out, then one pp-analyze merge
#             and pp-analyze report (what the fleet does, on one CPU, without Dask)
#   fleet-1   pp fleet top ... --workers 1 (a local cluster of one worker)
#   fleet-2   pp fleet top ... --workers 2
# Prints one JSON line per way: {"stage":"fleet","mode":"serial","captures":20,"events":N,
# "wall_s":S,"cpu_s":S,...}; the three reports must be the same (else a row with
# status=failed).  The fleet's CPU time includes Python and Dask; the serial loop's, sh.
# Run by `make bench` as its stage `fleet` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
ncap=${CAPTURES:-20}
events=${EVENTS:-5000000}
[ -n "$QUICK" ] && events=${EVENTS:-1000000}
py=/usr/bin/python3
[ -x $py ] || py=python3
if ! $py -c 'import distributed' 2>/dev/null; then
	bench_emit stage=fleet status=skipped reason="Dask is not installed (make deps)"
	exit 0
fi

dir=$BENCH_DIR/captures/fleet-$ncap-$events
mkdir -p "$dir"
caps=""
for i in $(seq "$ncap"); do
	if [ ! -s "$dir/c$i.ppcap" ]; then
		mkdir -p "$dir/tmp" && "$FMTBENCH" -n "$events" -o "$dir/tmp" >/dev/null &&
			mv "$dir/tmp/fmtbench.ppcap" "$dir/c$i.ppcap" ||
			{ bench_note "fmtbench -n $events failed"; exit 1; }
		rm -rf "$dir/tmp"
	fi
	caps="$caps $dir/c$i.ppcap"
done
total=$((ncap * events))
az="top -e sched:sched_switch//key=prev_pid/"

# the serial loop, as a script runstat can time
cat >"$dir/serial.sh" <<SH
set -e
cd "$dir"
n=0
for c in $caps; do
	n=\$((n + 1))
	"$PP_BIN/pp-analyze" "\$c" $az --state-out s\$n.state
done
"$PP_BIN/pp-analyze" merge s*.state -o all.state
"$PP_BIN/pp-analyze" report all.state
SH

ref=$BENCH_DIR/fleet.serial.out
if bench_measure "$ref" sh "$dir/serial.sh"; then
	bench_emit_run stage=fleet mode=serial captures="$ncap" events="$total"
else
	bench_emit stage=fleet mode=serial status=failed
fi
for w in 1 2; do
	out=$BENCH_DIR/fleet.$w.out
	# shellcheck disable=SC2086 # $az and $caps are word lists
	if bench_measure "$out" "$PP_BIN/pp" fleet $az --workers $w $caps &&
		cmp -s "$ref" "$out"; then
		bench_emit_run stage=fleet mode=fleet-$w workers=$w captures="$ncap" events="$total"
	else
		bench_emit stage=fleet mode=fleet-$w status=failed \
			reason="pp fleet failed or its report is not the serial loop's"
	fi
done
