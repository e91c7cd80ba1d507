#!/bin/sh
# SPDX-License-Identifier: MIT
# t113-record-clock: tracepoints read from the tracefs instance carry the "local" clock
# (sched_clock()), mapped to CLOCK_MONOTONIC through instances/pp-PID-clock
# (record/ftrace/clocksync.h); perf events are on CLOCK_MONOTONIC.  Both see each context switch
# of a pinned ping-pong: sched:sched_switch from tracefs and the context-switches sample
# from perf, on the same CPU for the same thread, within a microsecond of each other.
# Ground truth: for each switch the nearest sample is within 5 us for 99% of the switches and
# the median is within 2 us - with the mapping, and with --ftrace-mono (the instance on
# CLOCK_MONOTONIC itself) as the control.  Unmapped, the local clock is off by sched_clock()'s
# whole offset (milliseconds to days); a mapping off by a bracket fails the median.
# While recording, instances/pp-PID-clock exists; after the end it is gone.  Where it cannot
# be made, the instance runs on mono (said with -v) and the check still holds.
. "$(dirname "$0")/lib.sh"
need_root
need_tracefs
tfs=/sys/kernel/tracing
[ -d $tfs/instances ] || skip "tracefs has no instances/ here: every tracepoint goes through perf"

# align FILE: "N P99_OK MEDIAN_US" of sched_switch against context-switches, same CPU and tid
align() {
	"$PP_ANALYZE" "$1" trace 2>/dev/null | awk '
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/)
				break
		if (i > NF)
			next
		tid = $(i - 2); t = $(i + 1); ev = $(i + 2)
		sub(/:$/, "", t); sub(/:$/, "", ev)
		k = $i " " tid; t = t * 1e6
		if (ev == "sched:sched_switch") {
			if (k in pend)
				done_one(pend[k], prevd[k])
			pend[k] = t
			prevd[k] = (k in cs) ? t - cs[k] : 1e18
		} else if (ev == "context-switches") {
			cs[k] = t
			if (k in pend) {
				d = t - pend[k]
				done_one(pend[k], prevd[k] < d ? prevd[k] : d)
				delete pend[k]
			}
		}
	}
	function done_one(t, d) { if (d < 0) d = -d; printf "%.0f\n", d }
	' | sort -n | awk '
	{ d[NR] = $1; if ($1 <= 5) ok++ }
	END { if (!NR) print 0, 0, 0; else print NR, (ok * 100 >= 99 * NR) ? 1 : 0, d[int((NR + 1) / 2)] }'
}

for mode in local mono; do
	opt=
	[ $mode = mono ] && opt=--ftrace-mono
	"$PP_RECORD" -v $opt -e sched:sched_switch -e context-switches -o $mode.cap -- \
		"$PP_LOAD/ctxsw" -n 5000 -c 0 >/dev/null 2>$mode.err
	assert_eq "$mode: pp-record exit status" 0 $?
	if [ $mode = local ] && ! grep -q "tracefs clock local" $mode.err; then
		cat $mode.err
		echo "the local clock is not used here (see above): only the control runs"
		continue
	fi
	grep "tracefs clock" $mode.err
	set -- $(align $mode.cap)
	echo "$mode: $1 switches, 99% within 5 us: $2, median $3 us"
	assert_ge "$mode: switches matched (2 a round trip)" 9000 "$1"
	assert_eq "$mode: 99% of switches within 5 us of perf's sample" 1 "$2"
	assert_between "$mode: median distance (us)" 0 2 "$3"
done

# the fallback: the clock instance cannot be made (the name is taken: the shell makes it and
# then becomes pp-record, same pid) - the main instance runs on mono, says so, and records
sh -c 'mkdir "$1/instances/pp-$$-clock" && shift && exec "$@"' sh $tfs \
	"$PP_RECORD" -v -e sched:sched_switch -e context-switches -o taken.cap -- \
	"$PP_LOAD/ctxsw" -n 5000 -c 0 >/dev/null 2>taken.err
rc=$?
grep "tracefs clock\|local clock" taken.err
for d in $tfs/instances/pp-*-clock; do
	[ -d "$d" ] && rmdir "$d" 2>/dev/null
done
assert_eq "taken clock instance: pp-record exit status" 0 $rc
grep -q "no mapping of the local clock (File exists): tracefs clock mono" taken.err ||
	fail "the fallback to mono is not said"
set -- $(align taken.cap)
echo "fallback: $1 switches, 99% within 5 us: $2, median $3 us"
assert_ge "fallback: switches matched" 9000 "$1"
assert_eq "fallback: 99% of switches within 5 us" 1 "$2"

# the clock instance lives as long as the recording
"$PP_LOAD/ctxsw" -n 100000000 -c 0 >/dev/null 2>&1 &
lpid=$!
"$PP_RECORD" -v -e sched:sched_switch -o int.cap --duration 30 2>int.err &
rpid=$!
sleep 1
present=0
[ -d $tfs/instances/pp-$rpid-clock ] && present=1
kill -INT $rpid
wait $rpid
kill $lpid
wait $lpid 2>/dev/null
if grep -q "tracefs clock mono" int.err; then
	echo "no clock instance to look for: the instance is on mono"
else
	assert_eq "instances/pp-$rpid-clock while recording" 1 $present
fi
[ -d $tfs/instances/pp-$rpid-clock ] && fail "instances/pp-$rpid-clock left after SIGINT"
exit 0
