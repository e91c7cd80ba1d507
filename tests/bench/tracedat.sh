#!/bin/sh
# SPDX-License-Identifier: MIT
# tracedat.sh - reading a trace.dat (issue 29): pp-analyze FILE.dat trace / top against
# trace-cmd report on the same file.
#
# Records the pinned context-switch storm (tests/load/ctxsw, N round trips: about 3 events a
# round trip) with trace-cmd record (tests/bench/tcwrap.sh), then measures, RUNS times each,
# the CPU time (user+sys, /usr/bin/time) of `trace-cmd report` to /dev/null, of
# `pp-analyze FILE.dat trace -o /dev/null` and `top` (the conversion through libtracecmd
# included), of `import -o` alone and of `trace` and `top` on the imported capture.  Prints
# a markdown table (the best run of each) and the issue's two ratios.  Root.
#
# usage: sh tests/bench/tracedat.sh [ROUND_TRIPS] [RUNS]   (default 800000 3)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-800000}
runs=${2:-3}
w=$(mktemp -d /tmp/pp-bench-tracedat.XXXXXX)
trap 'rm -rf "$w"' EXIT
cd "$w"
sh "$top/tests/bench/tcwrap.sh" trace-cmd record -b 40000 -e sched:sched_switch \
	-e sched:sched_wakeup -o big.dat "$top/build/load/ctxsw" -n "$n" -c 0 >rec.log 2>&1
trace-cmd convert --file-version 6 -i big.dat -o big6.dat >/dev/null 2>&1
pa=$top/pp-analyze
ev=$("$pa" big.dat info 2>/dev/null | awk '$1 == "events" { print $2; exit }')
"$pa" big.dat import -o big.ppcap 2>/dev/null

# cpu NAME CMD...: the least user+sys of RUNS runs, and that run's peak RSS (MB)
cpu() {
	name=$1
	shift
	best=""
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%U %S %M' "$@" >/dev/null 2>t.err || { cat t.err; exit 1; }
		r=$(tail -1 t.err | awk '{ printf "%.3f %.1f", $1 + $2, $3 / 1024 }')
		if [ -z "$best" ] || awk -v a="${r% *}" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then
			best=$r
		fi
	done
	echo "$name ${best% *} ${best#* }"
}
echo "$ev events, $(ls -l big.dat | awk '{ print $5 }') bytes as trace-cmd record wrote it" \
	"($("$pa" big.dat info 2>/dev/null | sed -n 's/^recorder *//p')), $(ls -l big6.dat |
	awk '{ print $5 }') bytes as version 6 (trace-cmd convert); RUNS=$runs, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
for f in big.dat big6.dat; do
	{
		cpu "trace-cmd_report" trace-cmd report $f
		cpu "pp-analyze_FILE.dat_trace" "$pa" $f trace -o /dev/null
		cpu "pp-analyze_FILE.dat_top" "$pa" $f top -e sched:sched_switch,sched:sched_wakeup
		cpu "pp-analyze_FILE.dat_import" "$pa" $f import -o again.ppcap
		cpu "pp-analyze_capture_trace" "$pa" big.ppcap trace -o /dev/null
		cpu "pp-analyze_capture_top" "$pa" big.ppcap top -e sched:sched_switch,sched:sched_wakeup
	} >res.txt
	echo
	echo "$f:"
	echo
	echo "| what | CPU s | events/CPU s | x trace-cmd report | peak RSS MB |"
	echo "|---|---|---|---|---|"
	rep=$(awk '$1 == "trace-cmd_report" { print $2 }' res.txt)
	awk -v ev="$ev" -v rep="$rep" '{ gsub("_", " ", $1)
		printf "| %s | %.2f | %.2fM | %.2f | %.0f |\n", $1, $2, ev / $2 / 1e6, rep / $2, $3 }' res.txt
	awk -v rep="$rep" -v f="$f" '
		$1 == "pp-analyze_FILE.dat_trace" { printf "\n%s: trace %.2fx trace-cmd report (target 3x): %s\n", f, rep / $2, (rep / $2 >= 3) ? "met" : "not met" }
		$1 == "pp-analyze_FILE.dat_top" { printf "%s: top %.2fx trace-cmd report (target 10x): %s\n", f, rep / $2, (rep / $2 >= 10) ? "met" : "not met" }' res.txt
done
