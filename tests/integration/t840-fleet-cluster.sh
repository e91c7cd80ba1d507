#!/bin/sh
# SPDX-License-Identifier: MIT
# t840-fleet-cluster: pp fleet on a real Dask cluster (issue 19 part 2): a dask-scheduler and
# two dask-workers on 127.0.0.1, four captures of the syscalls load (1000, 2000, 3000 and
# 4000 getppid() calls on two threads, the load's own count).  The fleet's syscalls report is
# the serial `pp-analyze merge` of the same states, byte for byte, and its getppid calls are
# the sum of the four replays and of the loads' ground truth; a worker killed (SIGKILL) while
# the fleet runs changes nothing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-fleet.sh"
need_fleet
need_event raw_syscalls:sys_enter

truth=0
caps=""
for i in 1 2 3 4; do
	record_load c$i 2 $((i * 500))
	truth=$((truth + $(cat c$i.truth)))
	caps="$caps $T/c$i.ppcap"
done

# the serial baseline: each capture's state, merged in one pp-analyze merge
replays=0
for i in 1 2 3 4; do
	run_ok c$i.out "$PP_ANALYZE" "$T/c$i.ppcap" syscalls
	replays=$((replays + $(getppid c$i.out)))
	run_ok /dev/null "$PP_ANALYZE" "$T/c$i.ppcap" syscalls --state-out c$i.state
done
run_ok /dev/null "$PP_ANALYZE" merge c1.state c2.state c3.state c4.state -o serial.state
run_ok serial.out "$PP_ANALYZE" report serial.state

# every task takes 1.5 s on these workers: the kill below lands while w1 works on one
start_scheduler
start_worker w1 PP_FLEET_TASK_DELAY_MS=1500
W1=$WORKER_PID
start_worker w2 PP_FLEET_TASK_DELAY_MS=1500
wait_workers 2

# t840.1 the fleet's report is the serial merge's; its calls the replays' and the loads'
run_ok fleet.out "$PP" fleet syscalls --scheduler "$SCHED" --fan-in 2 --state-out fleet.state $caps
check_output serial.out fleet.out
cmp serial.state fleet.state >/dev/null || fail "the fleet's merged state is not the serial merge's"
assert_eq "getppid calls: the four replays" "$replays" "$(getppid fleet.out)"
if [ "$replays" != "$truth" ]; then
	echo "note: the replays count $replays getppid calls, the loads made $truth: the recording" \
		"missed some of their events; the fleet added what the replays count exactly"
else
	assert_eq "getppid calls: the loads' ground truth" "$truth" "$(getppid fleet.out)"
fi

# t840.2 a worker killed mid-run: Dask runs its task again elsewhere, nothing counted twice
"$PP" fleet syscalls --scheduler "$SCHED" --fan-in 2 --state-out kill.state $caps \
	>kill.out 2>kill.err &
fleet=$!
busy_worker w1 || { cat kill.err; fail "w1 was never given a capture"; }
kill -9 $W1
kill -0 $fleet 2>/dev/null || fail "the fleet ended before the kill: $(cat kill.err)"
wait $fleet || { cat kill.err; fail "pp fleet failed after a worker was killed"; }
check_output serial.out kill.out
cmp serial.state kill.state >/dev/null || fail "after the kill the merged state differs"
"$FLEET_PY" - "$SCHED" <<'PY' || fail "the killed worker is still in the cluster"
import sys
from distributed import Client
c = Client(sys.argv[1], timeout="10s")
n = len(c.scheduler_info()["workers"])
c.close()
sys.exit(n != 1)
PY

# t840.3 the same capture twice is refused by the merge, naming both: no double count
"$PP" fleet syscalls --scheduler "$SCHED" "$T/c1.ppcap" "$T/c2.ppcap" "$T/c1.ppcap" \
	>twice.out 2>twice.err && fail "a capture given twice was merged"
grep -q "cannot merge.*c1.ppcap.*c1.ppcap.*count it twice" twice.err ||
	{ cat twice.err; fail "no message naming the capture given twice"; }
[ "$(wc -l <twice.err)" = 1 ] || { cat twice.err; fail "more than one line of error"; }
exit 0
