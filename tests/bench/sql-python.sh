#!/bin/sh
# SPDX-License-Identifier: MIT
# sql-python.sh - throughput of the sql and python analyzers, one JSON object a line.
#
# usage: [QUICK=1] [RUNS=N] [PARTS=1|2|12] sh tests/bench/sql-python.sh [DIR]     (root for part 1)
#
# (perf 6.1 aborts on this kernel's build ids without -B --buildid-mmap, see bench.py.)
# 1. One ctxsw workload recorded at the same time by pp-record and perf record
#    (sched:sched_switch; N_ROUNDTRIPS=5M round trips, about 10M events; 100k with QUICK):
#    `sql --query 'SELECT prev_comm, count(*) ... GROUP BY'`, `pp-analyze trace -o /dev/null`, `perf script > /dev/null`, a python __sample__
#    handler reading one field, and the same loop in a plain python3 with `import pp`.
# 2. A synthetic capture of N_BIG events (build/bench/fmtbench, sched_switch; 10M, 1M with
#    QUICK): every query shape below in both storage modes (--mode vtab / table), and python.
# Times: cpu_s = user+sys of the process, wall_s = elapsed (longer on a busy machine).
# Lines: {"bench":..., "shape":..., "tool":..., "events":N, "cpu_s":.., "wall_s":..,
# "events_per_cpu_s":.., "events_per_s":.., "maxrss_kb":.., "loadavg":..}.
# Each command runs RUNS times (default 3, 1 with QUICK=1) under runstat: best wall time,
# the CPU of that run, the largest peak RSS (tests/bench/lib.sh).  The synthetic capture is
# the one the export stage reads too (bench_fmtbench_capture).  Run by `make bench` as its
# stage `sqlpy` (tests/bench/bench.py).
set -u

. "$(dirname "$0")/lib.sh"
PYMOD=${PYMOD:-$TOP/build/python}
PYTHON=${PYTHON:-/usr/bin/python3}	# the python3 the module was built for
dir=${1:-$BENCH_DIR/sqlpy}
mkdir -p "$dir"
cd "$dir" || exit 1
n_rt=${N_ROUNDTRIPS:-5000000}
n_big=${N_BIG:-10000000}
parts=${PARTS:-12}	# which parts to run: 1, 2 or 12
if [ -n "$QUICK" ]; then
	n_rt=100000
	n_big=1000000
fi
PA="$PP_BIN/pp-analyze"

emit() { bench_emit_of shape "$@"; }	# bench shape tool events

cat >one.py <<'EOF'
n = 0
s = 0
def __sample__(ev):
    global n, s
    n += 1
    s += ev.prev_pid
def __exit__():
    print(n, s)
EOF
cat >standalone.py <<'EOF'
import sys
import pp
n = s = 0
for ev in pp.open(sys.argv[1]).events("sched:sched_switch"):
    n += 1
    s += ev.prev_pid
print(n, s)
EOF

group_by='SELECT prev_comm, count(*) FROM sched_switch GROUP BY prev_comm'

# --- 1. a real workload, pp-record and perf record side by side -------------
case $parts in *1*) ;; *) bench_note "part 1 not asked for" ;; esac
if [ "$(id -u)" = 0 ] && command -v perf >/dev/null 2>&1 && case $parts in *1*) true ;; *) false ;; esac; then
	[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	rm -f ctx.ppcap ctx.perf ctx.perf.old	# (perf record keeps an old file as .old)
	"$PP_BIN/pp-record" -e sched:sched_switch -a -m 8192 -o ctx.ppcap >rec-pp.log 2>&1 &
	pp_pid=$!
	perf record -q -B --buildid-mmap -e sched:sched_switch -a -m 8192 -o ctx.perf >rec-perf.log 2>&1 &
	perf_pid=$!
	sleep 2
	"$PP_LOAD/ctxsw" -n "$n_rt" -c 0 2>load.log
	sleep 1
	kill -INT $pp_pid $perf_pid
	wait $pp_pid $perf_pid
	n_pp=$(bench_info ctx.ppcap events)
	n_perf=$(perf script -i ctx.perf -F event 2>/dev/null | wc -l)
	bench_note "recorded: pp-record $n_pp events, perf $n_perf events"
	bench_measure_tag sql-groupby "$PA" ctx.ppcap sql -e sched:sched_switch --query "$group_by" &&
		emit real group-by pp-sql "$n_pp"
	bench_measure_tag sql-groupby-table "$PA" ctx.ppcap sql -e sched:sched_switch --mode table \
		--query "$group_by" && emit real group-by pp-sql-table "$n_pp"
	bench_measure_tag trace "$PA" ctx.ppcap trace -o /dev/null && emit real decode pp-trace "$n_pp"
	bench_measure_tag perf-script perf script -i ctx.perf && emit real decode perf-script "$n_perf"
	bench_measure_tag py-one "$PA" ctx.ppcap python -e sched:sched_switch one.py &&
		emit real one-field pp-python "$n_pp"
	PYTHONPATH=$PYMOD bench_measure_tag py-standalone "$PYTHON" standalone.py ctx.ppcap &&
		emit real one-field python3-import-pp "$n_pp"
	[ -n "${KEEP:-}" ] || rm -f ctx.ppcap ctx.perf	# 1.5 GB at full size
else
	bench_note "part 1 skipped: needs root and perf"
fi

# --- 2. a synthetic capture: query shapes in both modes ----------------------
case $parts in *2*) ;; *) exit 0 ;; esac
cap=$(bench_fmtbench_capture "$n_big") || { bench_note "fmtbench failed"; exit 1; }
t_mid=$("$PA" $cap sql -e sched:sched_switch --query \
	'SELECT (min(_time) + max(_time)) / 2 FROM sched_switch' --format csv | sed -n 2p)
t_end=$((t_mid + (t_mid - $("$PA" $cap sql -e sched:sched_switch --query \
	'SELECT min(_time) FROM sched_switch' --format csv | sed -n 2p)) / 10))
shapes="count|SELECT count(*) FROM sched_switch
group-by-text|$group_by
group-by-int|SELECT prev_pid, count(*), sum(prev_prio) FROM sched_switch GROUP BY prev_pid
time-range|SELECT count(*), avg(prev_prio) FROM sched_switch WHERE _time >= $t_mid AND _time < $t_end
const-eq|SELECT count(*) FROM sched_switch WHERE prev_pid = 1003
order-limit|SELECT _time, prev_comm, next_comm FROM sched_switch ORDER BY prev_pid DESC, _time LIMIT 10
join-distinct|SELECT count(*) FROM sched_switch a JOIN (SELECT DISTINCT next_pid FROM sched_switch) b ON a.prev_pid = b.next_pid
all-columns|SELECT * FROM sched_switch WHERE _time >= $t_mid AND _time < $t_end"
echo "$shapes" | while IFS='|' read -r shape q; do
	for mode in vtab table; do
		bench_measure_tag "$shape-$mode" "$PA" $cap sql -e sched:sched_switch --mode "$mode" --query "$q" &&
			emit synthetic "$shape" "sql-$mode" "$n_big"
	done
done
bench_measure_tag big-trace "$PA" $cap trace -o /dev/null && emit synthetic decode pp-trace "$n_big"
bench_measure_tag big-py "$PA" $cap python -e sched:sched_switch one.py && emit synthetic one-field pp-python "$n_big"
PYTHONPATH=$PYMOD bench_measure_tag big-py-standalone "$PYTHON" standalone.py $cap &&
	emit synthetic one-field python3-import-pp "$n_big"
bench_note "results in $dir"
