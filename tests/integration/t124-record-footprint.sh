#!/bin/sh
# SPDX-License-Identifier: MIT
# t124-record-footprint: pp-record's own footprint over a long system-wide recording under
# load (context switches, wakeups and 997 Hz call-chain samples on every CPU).
# -v reports its CPU use every interval (--stat-interval 1s): one line per second with
# the CPU share, the RSS and the rates.  The RSS stays under the stated bound
#     64 MiB + per CPU (ring + FIFO), FIFO = max(4 MiB, 8 rings) (docs/production.md)
# and does not grow: the last 10 s are within 16 MiB of the 10th second.
# PP_FOOTPRINT_S sets the length (60 s here; the manual 10-minute run uses 600).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
skip_if_sanitized "pp-record's footprint"
need_event sched:sched_switch

DUR=${PP_FOOTPRINT_S:-60}
ncpu=$(getconf _NPROCESSORS_ONLN)
page=$(getconf PAGESIZE)
ring=$((1024 * page))	# -g on every CPU: 1024 pages a ring by default
fifo=$((8 * ring))
[ $fifo -lt $((4 << 20)) ] && fifo=$((4 << 20))
[ $fifo -gt $((64 << 20)) ] && fifo=$((64 << 20))
bound_kb=$(((64 << 10) + ncpu * (ring + fifo) / 1024))
echo "bound: 64 MiB + $ncpu x (ring $((ring >> 10)) KiB + FIFO $((fifo >> 10)) KiB) = $bound_kb KiB"

(
	end=$(($(date +%s) + DUR))
	while [ "$(date +%s)" -lt $end ]; do "$PP_LOAD/ctxsw" -n 100000 >/dev/null 2>&1; done
) &
lpid=$!
"$PP_LOAD/cpuburn" -d "$DUR" >/dev/null 2>&1 &
bpid=$!
trap 'kill $lpid $bpid 2>/dev/null; rm -rf "$T"' EXIT
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup -e cpu-clock -F 997 -g \
	--duration "$DUR" -v --stat-interval 1 -o foot.cap 2>rec.err
rc=$?
wait $lpid $bpid 2>/dev/null
grep -v "^pp-record: .*s cpu " rec.err
assert_eq "pp-record exit status" 0 $rc

# the interval lines: "pp-record:  12.0s cpu  3.1% (main 2.0% reader 1.1%) rss 21.3 MiB ..."
grep "^pp-record: .*s cpu " rec.err >iv.txt
head -3 iv.txt
tail -3 iv.txt
n=$(wc -l <iv.txt)
assert_ge "interval lines" $((DUR - 3)) "$n"
[ "$n" -le $((DUR + 2)) ] || fail "$n interval lines for $DUR s"
awk '{
	for (i = 1; i <= NF; i++) {
		if ($i == "cpu") { c = $(i + 1); sub("%", "", c); if (c + 0 < 0 || c + 0 > 200) bad = 1 }
		if ($i == "rss") {
			v = $(i + 1); u = $(i + 2)
			kb = u ~ /GiB/ ? v * 1048576 : u ~ /MiB/ ? v * 1024 : u ~ /KiB/ ? v : v / 1024
			print NR, int(kb)
		}
	}
} END { exit bad }' iv.txt >rss.txt || fail "a CPU share out of range"
[ "$(wc -l <rss.txt)" -eq "$n" ] || fail "an interval line without rss"
max=$(awk '$2 > m { m = $2 } END { print m + 0 }' rss.txt)
at10=$(awk '$1 == 10 { print $2 }' rss.txt)
late=$(awk -v n="$n" '$1 > n - 10 && $2 > m { m = $2 } END { print m + 0 }' rss.txt)
cpu=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "cpu") { c = $(i + 1); sub("%", "", c); s += c } }
	END { printf "%.1f", s / NR }' iv.txt)
peak=$(sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' rec.err | awk '{ print int($1 * 1024) }')
echo "RSS: max sampled $max KiB, at 10 s $at10 KiB, last 10 s max $late KiB, peak $peak KiB;" \
	"mean CPU $cpu% of one CPU"
[ "$max" -le "$bound_kb" ] || fail "sampled RSS $max KiB over the bound $bound_kb KiB"
[ -n "$peak" ] && [ "$peak" -le "$bound_kb" ] || fail "peak RSS $peak KiB over the bound $bound_kb KiB"
[ "$late" -le $((at10 + 16384)) ] || fail "RSS grew from $at10 KiB (10 s) to $late KiB"
"$PP_ANALYZE" foot.cap info | grep -q "^integrity *ok" || fail "the capture is damaged"
exit 0
