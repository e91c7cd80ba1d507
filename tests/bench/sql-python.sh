#!/bin/sh
# SPDX-License-Identifier: MIT
# sql-python.sh - throughput of the sql and python analyzers, one JSON object a line.
#
# usage: sh tests/bench/sql-python.sh [DIR]     (root for part 1; QUICK=1 for small runs)
#
# (perf 6.1 aborts on this kernel's build ids without -B --buildid-mmap, see bench.py.)
# 1. One ctxsw workload recorded at the same time by pp-record and perf record
#    (sched:sched_switch): `sql --query 'SELECT prev_comm, count(*) ... GROUP BY'`,
#    `pp-analyze trace -o /dev/null`, `perf script > /dev/null`, a python __sample__
#    handler reading one field, and the same loop in a plain python3 with `import pp`.
# 2. A synthetic capture of N_BIG events (build/bench/fmtbench, sched_switch): every
#    query shape below in both storage modes (--mode vtab / table), and python.
# Times: cpu_s = user+sys of the process, wall_s = elapsed (longer on a busy machine).
# Lines: {"bench":..., "shape":..., "tool":..., "events":N, "cpu_s":.., "wall_s":..,
# "events_per_cpu_s":.., "events_per_wall_s":.., "maxrss_kb":..}.  Needs GNU time.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
PP_BIN=${PP_BIN:-$top}
PP_LOAD=${PP_LOAD:-$top/build/load}
FMTBENCH=${FMTBENCH:-$top/build/bench/fmtbench}
PYMOD=${PYMOD:-$top/build/python}
PYTHON=${PYTHON:-/usr/bin/python3}	# the python3 the module was built for
dir=${1:-$(mktemp -d /tmp/pp-bench-sql.XXXXXX)}
mkdir -p "$dir"
cd "$dir" || exit 1
n_rt=${N_ROUNDTRIPS:-5000000}
n_big=${N_BIG:-10000000}
parts=${PARTS:-12}	# which parts to run: 1, 2 or 12
if [ -n "${QUICK:-}" ]; then
	n_rt=100000
	n_big=1000000
fi
PA="$PP_BIN/pp-analyze"

note() { echo "sql-python: $*" >&2; }

# measure TAG CMD...: sets cpu_s wall_s rss_kb from GNU time
measure() {
	_tag=$1
	shift
	/usr/bin/time -f "%U %S %e %M" -o "time-$_tag" "$@" >/dev/null 2>"err-$_tag"
	_rc=$?
	read -r u s wall_s rss_kb <"time-$_tag" || return 1
	cpu_s=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
	[ $_rc = 0 ] || note "$_tag exited $_rc: $(tail -2 "err-$_tag")"
	return $_rc
}

emit() {	# bench shape tool events
	awk -v b="$1" -v w="$2" -v t="$3" -v n="$4" -v c="$cpu_s" -v wl="$wall_s" -v r="$rss_kb" \
		'BEGIN { printf "{\"bench\":\"%s\",\"shape\":\"%s\",\"tool\":\"%s\",\"events\":%d,", b, w, t, n;
			 printf "\"cpu_s\":%.3f,\"wall_s\":%.3f,\"events_per_cpu_s\":%.0f,", c, wl, (c > 0 ? n / c : 0);
			 printf "\"events_per_wall_s\":%.0f,\"maxrss_kb\":%d}\n", (wl > 0 ? n / wl : 0), r }'
}

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
case $parts in *1*) ;; *) note "part 1 not asked for" ;; esac
if [ "$(id -u)" = 0 ] && command -v perf >/dev/null 2>&1 && case $parts in *1*) true ;; *) false ;; esac; then
	[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	"$PP_BIN/pp-record" -e sched:sched_switch -a -m 8192 -o ctx.ppcap >rec-pp.log 2>&1 &
	pp_pid=$!
	perf record -q -B --buildid-mmap -e sched:sched_switch -a -m 8192 -o ctx.perf >rec-perf.log 2>&1 &
	perf_pid=$!
	sleep 2
	"$PP_LOAD/ctxsw" -n "$n_rt" -c 0 2>load.log
	sleep 1
	kill -INT $pp_pid $perf_pid
	wait $pp_pid $perf_pid
	n_pp=$("$PA" ctx.ppcap info | awk '$1 == "events" { print $2 }')
	n_perf=$(perf script -i ctx.perf -F event 2>/dev/null | wc -l)
	note "recorded: pp-record $n_pp events, perf $n_perf events"
	measure sql-groupby "$PA" ctx.ppcap sql -e sched:sched_switch --query "$group_by" &&
		emit real group-by pp-sql "$n_pp"
	measure sql-groupby-table "$PA" ctx.ppcap sql -e sched:sched_switch --mode table \
		--query "$group_by" && emit real group-by pp-sql-table "$n_pp"
	measure trace "$PA" ctx.ppcap trace -o /dev/null && emit real decode pp-trace "$n_pp"
	measure perf-script perf script -i ctx.perf && emit real decode perf-script "$n_perf"
	measure py-one "$PA" ctx.ppcap python -e sched:sched_switch one.py &&
		emit real one-field pp-python "$n_pp"
	PYTHONPATH=$PYMOD measure py-standalone "$PYTHON" standalone.py ctx.ppcap &&
		emit real one-field python3-import-pp "$n_pp"
else
	note "part 1 skipped: needs root and perf"
fi

# --- 2. a synthetic capture: query shapes in both modes ----------------------
case $parts in *2*) ;; *) exit 0 ;; esac
mkdir -p big
"$FMTBENCH" -n "$n_big" -o big >fmtbench.json || { note "fmtbench failed"; exit 1; }
cap=big/fmtbench.ppcap
rm -f big/raw.bin
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
		measure "$shape-$mode" "$PA" $cap sql -e sched:sched_switch --mode "$mode" --query "$q" &&
			emit synthetic "$shape" "sql-$mode" "$n_big"
	done
done
measure big-trace "$PA" $cap trace -o /dev/null && emit synthetic decode pp-trace "$n_big"
measure big-py "$PA" $cap python -e sched:sched_switch one.py && emit synthetic one-field pp-python "$n_big"
PYTHONPATH=$PYMOD measure big-py-standalone "$PYTHON" standalone.py $cap &&
	emit synthetic one-field python3-import-pp "$n_big"
note "results in $dir"
