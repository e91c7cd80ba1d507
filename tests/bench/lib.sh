# SPDX-License-Identifier: MIT
# lib.sh - helpers shared by the per-issue bench scripts (analyze-core.sh, cpu-analyzers.sh,
# latency.sh, sql-python.sh, export.sh); sourced, not run.  bench.py runs those scripts as
# its stages core, cpu, latency, sqlpy and export.
#
# Sets TOP PP_BIN PP_LOAD BENCH_DIR RUNS RUNSTAT (building runstat if missing) from the
# environment: RUNS defaults to 3, to 1 with QUICK=1.  Results go to stdout as one JSON
# object a line (bench_emit); progress goes to stderr (bench_note).

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PP_BIN=${PP_BIN:-$TOP}
PP_LOAD=${PP_LOAD:-$TOP/build/load}
BENCH_DIR=${BENCH_DIR:-$TOP/build/bench}
QUICK=${QUICK:-}
[ "$QUICK" = 0 ] && QUICK=
if [ -n "$QUICK" ]; then RUNS=${RUNS:-1}; else RUNS=${RUNS:-3}; fi
RUNSTAT=$BENCH_DIR/runstat
FMTBENCH=${FMTBENCH:-$TOP/build/bench/fmtbench}	# built by `make all`
BENCH_NAME=${BENCH_NAME:-$(basename "$0" .sh)}
# pp-analyze on one thread: the speed bars (10M events per CPU second...) are per core, and a
# helper thread's cross-core traffic adds CPU time.  A script measures read-ahead explicitly.
export PP_READ_AHEAD=0
mkdir -p "$BENCH_DIR"
if [ ! -x "$RUNSTAT" ]; then
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -o "$RUNSTAT" "$TOP/tests/bench/runstat.c" ||
		exit 1
fi

bench_note() { echo "$BENCH_NAME: $*" >&2; }

bench_loadavg() { cut -d' ' -f1 /proc/loadavg; }

# bench_median: the median of the numbers on standard input, one a line (the lower of the
# two middle ones for an even count; 0 for none)
bench_median() { sort -n | awk '{ v[NR] = $1 } END { printf "%s", NR ? v[int((NR + 1) / 2)] : 0 }'; }

# bench_measure OUT CMD...: run CMD (stdout to OUT, stderr to $BENCH_ERR) RUNS times under
# runstat, and on while all its runs together took under BENCH_MIN_S seconds (3), up to
# 3 x RUNS: a sub-second command is then not judged on three draws of this VM's speed, which
# is bimodal (the same replay takes 0.30 or 0.50 s from one run to the next), while a
# 10-second one averages it within each run.  Sets WALL (the best wall time, s), CPU
# (user+sys of that run, s), CPU_MIN (the least user+sys of the runs, s), RSS_KB (the
# largest peak RSS of all runs) and MEASURED_RUNS.
# Returns CMD's exit status on failure.
BENCH_ERR=${BENCH_ERR:-$BENCH_DIR/$BENCH_NAME.err}
BENCH_MIN_S=${BENCH_MIN_S:-3}
bench_measure() {
	_out=$1
	shift
	WALL='' CPU='' CPU_MIN='' RSS_KB=0 MEASURED_RUNS=0
	_i=0 _spent=0
	while [ $_i -lt "$RUNS" ] || { [ $_i -lt $((3 * RUNS)) ] &&
		awk -v a="$_spent" -v b="$BENCH_MIN_S" 'BEGIN { exit !(a < b) }'; }; do
		"$RUNSTAT" -o "$BENCH_DIR/$BENCH_NAME.rs" -- "$@" >"$_out" 2>"$BENCH_ERR"
		_rc=$?
		if [ $_rc != 0 ]; then
			bench_note "exit status $_rc: $* ($(tail -1 "$BENCH_ERR"))"
			return $_rc
		fi
		_rs=$(cat "$BENCH_DIR/$BENCH_NAME.rs")
		_w=$(bench_kv wall_s "$_rs")
		_c=$(awk -v u="$(bench_kv user_s "$_rs")" -v s="$(bench_kv sys_s "$_rs")" \
			'BEGIN { printf "%.3f", u + s }')
		_r=$(bench_kv maxrss_kb "$_rs")
		if [ -z "$WALL" ] || awk -v a="$_w" -v b="$WALL" 'BEGIN { exit !(a < b) }'; then
			WALL=$_w CPU=$_c
		fi
		if [ -z "$CPU_MIN" ] || awk -v a="$_c" -v b="$CPU_MIN" 'BEGIN { exit !(a < b) }'; then
			CPU_MIN=$_c
		fi
		[ "$_r" -gt "$RSS_KB" ] && RSS_KB=$_r
		_spent=$(awk -v a="$_spent" -v b="$_w" 'BEGIN { printf "%.3f", a + b }')
		_i=$((_i + 1))
	done
	MEASURED_RUNS=$_i
	return 0
}

# bench_measure_tag TAG CMD...: bench_measure of CMD with its stdout dropped; TAG names the
# run where it is called (the row's own keys say what was measured)
bench_measure_tag() {
	shift
	bench_measure /dev/null "$@"
}

# bench_workdir NAME: work in $BENCH_DIR/NAME (dir), made if need be, errors in its err.txt
bench_workdir() {
	dir=$BENCH_DIR/$1
	mkdir -p "$dir"
	cd "$dir" || exit 1
	BENCH_ERR=$dir/err.txt
}

# bench_need_root NAME: unless root, emit NAME's row as skipped and exit
bench_need_root() {
	[ "$(id -u)" = 0 ] || { bench_emit bench="$1" status=skipped reason="needs root"; exit 0; }
}

# bench_kv KEY "k=v k=v ...": the value of KEY
bench_kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# bench_emit KEY=VALUE...: one JSON object; values that look like numbers stay numbers.
# bench_emit_run KEY=VALUE...: the same plus events_per_s, events_per_cpu_s (from the key
# "events" and WALL, CPU), wall_s, cpu_s, maxrss_kb, runs and the load average.
bench_emit() {
	awk 'BEGIN {
		s = "{"
		for (i = 1; i < ARGC; i++) {
			k = ARGV[i]; v = k; sub(/=.*/, "", k); sub(/^[^=]*=/, "", v)
			if (v !~ /^-?[0-9]+(\.[0-9]+)?$/) { gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); v = "\"" v "\"" }
			s = s (i > 1 ? "," : "") "\"" k "\":" v
		}
		print s "}"
	}' "$@"
}
bench_emit_run() {
	_n=
	for _a in "$@"; do case $_a in events=*) _n=${_a#events=} ;; esac; done
	bench_emit "$@" wall_s="$WALL" cpu_s="$CPU" cpu_min_s="$CPU_MIN" maxrss_kb="$RSS_KB" \
		runs="$MEASURED_RUNS" \
		events_per_s="$(awk -v n="${_n:-0}" -v w="$WALL" 'BEGIN { printf "%.0f", (w > 0 ? n / w : 0) }')" \
		events_per_cpu_s="$(awk -v n="${_n:-0}" -v c="$CPU" 'BEGIN { printf "%.0f", (c > 0 ? n / c : 0) }')" \
		loadavg="$(bench_loadavg)"
}

# bench_emit_of KEY BENCH VALUE TOOL EVENTS: bench_emit_run of bench=BENCH KEY=VALUE
# tool=TOOL events=EVENTS, for the scripts whose rows say what ran by position
bench_emit_of() {
	bench_emit_run bench="$2" "$1=$3" tool="$4" events="$5"
}

# bench_info CAPTURE KEY: a number of `pp-analyze CAPTURE info` (events, lost)
bench_info() {
	"$PP_BIN/pp-analyze" "$1" info | awk -v k="$2" '$1 == k || $1 == k ":" { print $2; exit }'
}

# bench_perf_events PERF.DATA: the SAMPLE records of a perf.data file
bench_perf_events() {
	perf report -i "$1" --stats 2>/dev/null |
		sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1
}

# trace-cmd through the bench harness's wrapper (see tests/bench/tcwrap.sh)
# (the top-level buffer size is put back afterwards: a -b would outlive the run and change
# every later trace-cmd measurement)
bench_tracecmd() {
	_kb=$(sed -n 's/.*expanded: \([0-9]*\).*/\1/p; s/^\([0-9][0-9]*\)$/\1/p' \
		/sys/kernel/tracing/buffer_size_kb 2>/dev/null)
	_rc=0
	if [ -f "$TOP/tests/bench/tcwrap.sh" ]; then
		sh "$TOP/tests/bench/tcwrap.sh" trace-cmd "$@" || _rc=$?
	else
		trace-cmd "$@" || _rc=$?
	fi
	[ -z "$_kb" ] || echo "$_kb" >/sys/kernel/tracing/buffer_size_kb 2>/dev/null || true
	return $_rc
}

# bench_fmtbench_capture N: the path of a synthetic N-event sched_switch capture written by
# build/bench/fmtbench, shared by the stages that want "the same capture" (sqlpy, export):
# built once under $BENCH_DIR/captures and kept there.
bench_fmtbench_capture() {
	_d=$BENCH_DIR/captures/fmtbench-$1
	if [ ! -s "$_d/fmtbench.ppcap" ]; then
		mkdir -p "$_d"
		[ -x "$FMTBENCH" ] || make -s -C "$TOP" all >&2
		"$FMTBENCH" -n "$1" -o "$_d" >"$_d/fmtbench.json" || return 1
		rm -f "$_d/raw.bin"
	fi
	echo "$_d/fmtbench.ppcap"
}

[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
