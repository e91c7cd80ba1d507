# SPDX-License-Identifier: MIT
# lib-fleet.sh - helpers for the pp fleet tests (t840-t844): Dask's processes started on
# 127.0.0.1 and stopped on exit, and captures of the syscalls load with their ground truth.
# Source it after lib.sh (and lib-analyze.sh, for load_field).

FLEET_PY=/usr/bin/python3
[ -x "$FLEET_PY" ] || FLEET_PY=python3
DASK_PIDS=""

# need_fleet: python3 with Dask's distributed scheduler, and its dask-scheduler/dask-worker
need_fleet() {
	"$FLEET_PY" -c 'import distributed' 2>/dev/null ||
		skip "Dask is not installed (python3-distributed, python3-dask: make deps)"
	command -v dask-scheduler >/dev/null && command -v dask-worker >/dev/null ||
		skip "no dask-scheduler/dask-worker on PATH (python3-distributed)"
	[ -x "$PP" ] || fail "missing binary $PP"
}

# stop_dask: every Dask process this test started (on exit too)
stop_dask() {
	for p in $DASK_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	for p in $DASK_PIDS; do
		wait "$p" 2>/dev/null
	done
	DASK_PIDS=""
}
trap 'stop_dask; if [ -n "${PP_KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi' EXIT
trap 'exit 1' INT TERM HUP

# start_scheduler: a dask-scheduler on 127.0.0.1, any free port; sets SCHED (tcp://...)
start_scheduler() {
	rm -f sched.json
	dask-scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file sched.json \
		>scheduler.log 2>&1 &
	DASK_PIDS="$DASK_PIDS $!"
	SCHED_PID=$!
	for _ in $(seq 100); do
		[ -s sched.json ] && break
		sleep 0.1
	done
	SCHED=$("$FLEET_PY" -c 'import json, sys; print(json.load(open("sched.json"))["address"])' \
		2>/dev/null) || { cat scheduler.log; fail "dask-scheduler did not start"; }
}

# start_worker NAME [ENV=VALUE...]: one dask-worker of one thread, without a nanny (killed,
# it stays dead); sets WORKER_PID
start_worker() {
	name=$1
	shift
	env "$@" dask-worker "$SCHED" --name "$name" --host 127.0.0.1 --nthreads 1 --no-nanny \
		--no-dashboard >"worker-$name.log" 2>&1 &
	WORKER_PID=$!
	DASK_PIDS="$DASK_PIDS $!"
}

# wait_workers N: until the scheduler has N workers
wait_workers() {
	"$FLEET_PY" - "$SCHED" "$1" <<'PY' || { cat scheduler.log worker-*.log; fail "the workers did not join"; }
import sys
from distributed import Client
c = Client(sys.argv[1], timeout="20s")
c.wait_for_workers(int(sys.argv[2]), timeout=30)
c.close()
PY
}

# busy_worker NAME: wait (up to 30 s) until the worker NAME is running a task of the fleet's
busy_worker() {
	"$FLEET_PY" - "$SCHED" "$1" <<'PY'
import sys, time
from distributed import Client
c = Client(sys.argv[1], timeout="10s")
addr = [a for a, w in c.scheduler_info()["workers"].items() if w["name"] == sys.argv[2]]
end = time.time() + 30
while addr and time.time() < end:
    if any(k.startswith("_task_state") for k in c.processing(addr).get(addr[0], ())):
        break
    time.sleep(0.05)
else:
    sys.exit(1)
c.close()
PY
}

# record_load NAME THREADS COUNT [HOST]: a capture NAME.ppcap of the syscalls load's events
# (in a UTS namespace named HOST when given); its getppid() count into NAME.truth
record_load() {
	cmd="\"$PP_RECORD\" -m 1024 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o $1.ppcap \
		-- \"$PP_LOAD/syscalls\" -t $2 -n $3 >$1.rec.out 2>$1.rec.err"
	if [ -n "${4:-}" ]; then
		unshare -u sh -c "hostname $4 && $cmd" ||
			{ cat "$1.rec.err"; fail "pp-record $1 (host $4) failed"; }
	else
		sh -c "$cmd" || { cat "$1.rec.err"; fail "pp-record $1 exited $?"; }
	fi
	grep -q ' lost: 0;' "$1.rec.err" ||
		skip "the recording lost events (busy machine): $(grep lost: "$1.rec.err")"
	load=$(grep '^LOAD syscalls' "$1.rec.err") || { cat "$1.rec.err"; fail "no LOAD line in $1"; }
	assert_eq "getppid calls of $1" $(($2 * $3)) "$(load_field "$load" getppid)"
	load_field "$load" getppid >"$1.truth"
	GETPPID_NR=$(load_field "$load" getppid_nr)
}

# calls_csv FILE [HOST [CAPTURE]]: the getppid calls in a syscalls report in CSV (of HOST's
# rows, of CAPTURE's), added over its rows; a table after a blank line has its own header
calls_csv() {
	awk -F, -v id="$GETPPID_NR" -v h="${2:-}" -v cap="${3:-}" '
		$0 == "" { head = 1; next }
		NR == 1 || head { delete c; for (i = 1; i <= NF; i++) c[$i] = i; head = 0; next }
		$c["id"] == id && (h == "" || $c["host"] == h) && (cap == "" || $c["capture"] == cap) {
			s += $c["calls"]
		}
		END { print s + 0 }' "$1"
}

# getppid FILE: the getppid row's calls in a syscalls text report
getppid() {
	awk -v n="$GETPPID_NR" '$1 ~ ("\\(" n "\\)$") { print $2 }' "$1"
}
