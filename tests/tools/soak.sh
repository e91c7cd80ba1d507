#!/bin/sh
# SPDX-License-Identifier: MIT
# soak.sh BIN LOAD SECONDS DIR - pp-record under a long system-wide recording with rotation
# keeps its memory and its open files flat (make soak; t752 runs it shortened; issue 20).
#
# pp-record -a records cpu-clock with call chains and the scheduler tracepoints into DIR,
# rotating files of 8 MiB and keeping 3, for SECONDS, while the project's loads run one
# after another (each a new process: forks, execs, exits, new mappings - the side-band a
# recorder keeps tables of).  Every 2 s the VmRSS and the number of open fds of pp-record
# and of its child processes are sampled (DIR/soak.samples: seconds, RSS KiB, fds).  After
# a warm-up (the first fifth, at least 60 s: the rings' pages are touched for the first
# time as they wrap, the tables fill; here RSS rose from 38 to 48 MiB in the first 60 s of
# a 300 s run, then moved between 45 and 54 MiB with rotations and compression), the rest's
# last quarter is compared with its first: RSS's smallest may exceed the first quarter's
# largest by at most max(4 MiB, 5 %), its largest by twice that, the fds by 2.  A leak
# raises the floor; a rotation's or a compression's spike does not (a 120 s run beside a
# build went 42.5 -> 48.9 -> 44.2 MiB in its last 20 s), and on a busy machine the
# recorder drains later, more of each ring is used, and the warm-up's last step comes
# after 60 s (a 120 s run stepped from 72.6 to 85.4 MiB at 66 s, then stayed flat).  One summary line; exit 0, 1 (grew, or pp-record failed), 77 (cannot record
# here).
set -u
bin=$1 load=$2 secs=$3 dir=$4
mkdir -p "$dir"
[ "$(id -u)" = 0 ] || { echo "soak: needs root (a system-wide recording)"; exit 77; }
[ -d /sys/kernel/tracing/events/sched ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events/sched/sched_switch ] ||
	{ echo "soak: no tracefs sched:sched_switch here"; exit 77; }
[ "$secs" -ge 90 ] || { echo "soak: SECONDS must be 90 or more (60 of them warm-up)"; exit 2; }
rm -f "$dir"/soak.cap* "$dir/soak.samples"

"$bin/pp-record" -a -F 499 -g -e cpu-clock -e sched:sched_switch,sched:sched_wakeup \
	--max-size 8M --rotate 3 --duration "$secs" -o "$dir/soak.cap" 2>"$dir/soak.rec.err" &
rec=$!

# the loads, one after another until the recording ends
(
	while kill -0 $rec 2>/dev/null; do
		"$load/ctxsw" -n 20000 >/dev/null
		"$load/syscalls" -t 2 -n 20000 >/dev/null
		"$load/pagetouch" -n 2000 -r 3 >/dev/null
		"$load/mallocloop" -n 200000 >/dev/null
		"$load/sleeper" -n 20 -s 5ms >/dev/null
		"$load/cpuburn" -d 1 >/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done
	done
) 2>/dev/null &
loads=$!

# sample PID: "RSS_KIB FDS" of PID and its children (threads share the process's)
sample() {
	rss=0 fds=0
	for p in $1 $(awk -v pp="$1" '$4 == pp { print $1 }' /proc/[0-9]*/stat 2>/dev/null); do
		r=$(awk '/^VmRSS:/ { print $2 }' /proc/$p/status 2>/dev/null) || continue
		[ -n "$r" ] || continue
		rss=$((rss + r))
		fds=$((fds + $(ls /proc/$p/fd 2>/dev/null | wc -l)))
	done
	echo "$rss $fds"
}

t0=$(date +%s)
while kill -0 $rec 2>/dev/null; do
	s=$(sample $rec)
	[ "${s%% *}" -gt 0 ] && echo "$(($(date +%s) - t0)) $s" >>"$dir/soak.samples"
	sleep 2
done
wait $rec
rc=$?
kill $loads 2>/dev/null
wait $loads 2>/dev/null
if [ $rc -ne 0 ]; then
	tail -5 "$dir/soak.rec.err"
	echo "soak: pp-record exited $rc"
	exit 1
fi
files=$(sed -n 's/.*rotation: \([0-9]*\) files.*/\1/p' "$dir/soak.rec.err" | tail -1)
awk -v secs="$secs" -v files="${files:-?}" '
	function median(a, n,    i, j, x) {
		for (i = 2; i <= n; i++) {
			x = a[i]
			for (j = i - 1; j > 0 && a[j] > x; j--)
				a[j + 1] = a[j]
			a[j + 1] = x
		}
		return n ? a[int((n + 1) / 2)] : 0
	}
	{ t[NR] = $1; r[NR] = $2; f[NR] = $3 }
	END {
		warm = secs / 5 < 60 ? 60 : secs / 5; w = (secs - warm) / 4
		for (i = 1; i <= NR; i++) {
			if (t[i] >= warm && t[i] < warm + w) {
				E[++ne] = r[i]
				if (r[i] > er) er = r[i]
				if (f[i] > ef) ef = f[i]
			}
			if (t[i] >= secs - w) {
				L[++nl] = r[i]
				if (r[i] > lr) lr = r[i]
				if (nl == 1 || r[i] < ll) ll = r[i]
				if (f[i] > lf) lf = f[i]
			}
		}
		em = median(E, ne); lm = median(L, nl)
		margin = em * 0.05 > 4096 ? em * 0.05 : 4096
		printf "soak: %d s, %s files written, %d samples; RSS median %d KiB early, %d KiB " \
		       "late (margin %d), max %d, %d, late floor %d; fds max %d early, %d late\n",
		       secs, files, NR, em, lm, margin, er, lr, ll, ef, lf
		if (ne < 3 || nl < 3) { print "soak: too few samples"; exit 1 }
		if (ll > er + margin) { print "soak: FAIL: RSS grew (its floor)"; exit 1 }
		if (lr > er + 2 * margin) { print "soak: FAIL: RSS grew (maxima)"; exit 1 }
		if (lf > ef + 2) { print "soak: FAIL: open fds grew"; exit 1 }
	}' "$dir/soak.samples"
