#!/bin/sh
# SPDX-License-Identifier: MIT
# t125-record-short-tasks: processes that live about a millisecond, one after another,
# while pp-record starts.  Those running when the events are enabled have no FORK or
# COMM record; one that exits before the /proc snapshot reaches it must still be
# named: the snapshot reads the names before the enable too.  And the kernel gives
# the samples of a task past its exit pid/tid -1: the capture names the task (from
# common_pid, or the CPU's last EXIT record).  Five short recordings: no sample with
# tid -1 in the capture, every sample's thread has a name (trace prints no <...>).
# t125.2: with -C 0, processes forked on CPU 1 that run on CPU 0 are named too (the
# side-band event is opened on every CPU).
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
command -v setsid >/dev/null 2>&1 || skip "no setsid(1) for a process group"

setsid sh -c 'while :; do /bin/true; done' &
churn=$!
trap 'kill -KILL -$churn 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.2
for i in 1 2 3 4 5; do
	"$PP_RECORD" -e sched:sched_switch -e page-faults -e cpu-clock -F 2000 -o short$i.cap \
		--duration 0.3 >rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
	"$PP_ANALYZE" short$i.cap trace >trace$i.out 2>&1 || fail "pp-analyze trace exited $?"
	"$PP_ANALYZE" short$i.cap dump >dump$i.out 2>&1 || fail "pp-analyze dump exited $?"
	if grep -q 'SAMPLE.* tid=4294967295' dump$i.out; then
		grep 'SAMPLE.* tid=4294967295' dump$i.out | head -5
		fail "recording $i: samples with tid -1 in the capture"
	fi
	n=$(grep -c 'true\|sh ' trace$i.out)
	[ "$n" -gt 0 ] || fail "recording $i saw no sample of the short processes"
	if grep -q '<\.\.\.>' trace$i.out; then
		grep '<\.\.\.>' trace$i.out | head -5
		fail "recording $i: samples of a thread without a name"
	fi
done
kill -KILL -$churn 2>/dev/null

# t125.2 forked on CPU 1 (FORK and COMM records there), run on CPU 0 (samples there)
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	setsid taskset -c 1 sh -c 'while :; do taskset -c 0 /bin/true; done' &
	churn=$!
	sleep 0.2
	for i in 1 2 3; do
		"$PP_RECORD" -C 0 -e sched:sched_switch -e page-faults -o c0-$i.cap --duration 0.3 \
			>rec.out 2>&1 || { cat rec.out; fail "pp-record -C 0 exited $?"; }
		"$PP_ANALYZE" c0-$i.cap trace >c0-$i.out 2>&1 || fail "pp-analyze trace exited $?"
		grep -q 'taskset\|true' c0-$i.out || fail "-C 0 recording $i saw no sample of the processes"
		if grep -q '<\.\.\.>' c0-$i.out; then
			grep '<\.\.\.>' c0-$i.out | head -5
			fail "-C 0 recording $i: samples of a thread without a name"
		fi
	done
else
	echo "t125.2 skipped: needs 2 CPUs and taskset"
fi
exit 0
