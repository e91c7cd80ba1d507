#!/bin/sh
# SPDX-License-Identifier: MIT
# t303-top-golden: top on fixed captures: default rows per thread, key=/comm=/top-by=/
# top-add=/alias=/printkey=, -k, --only-comm, -i tables, json/csv, errors
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
build_fixture print-mix
S=sched-basic.ppcap

golden top-default "$PP_ANALYZE" $S top -e sched:sched_switch,sched:sched_wakeup || fail "top"
golden top-keys "$PP_ANALYZE" $S top \
	-e 'sched:sched_switch//key=prev_pid/comm=prev_comm/top-by=prev_prio/top-add=prev_state/,sched:sched_wakeup//key=pid/comm=comm/alias=wk/' ||
	fail "top keys"
golden top-only-comm "$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/alias=switches/' --only-comm ||
	fail "top --only-comm"
golden top-printkey "$PP_ANALYZE" print-mix.ppcap top \
	-e 'kvm:kvm_exit//key=exit_reason/printkey=printf("%-18s",exit_reason_str(1,key))/' || fail "top printkey"
golden top-k "$PP_ANALYZE" $S top -e sched:sched_switch -k prev_pid || fail "top -k"
# t303.2 -k is an expression, as key= (perf-prof: -k '(_cpu<<16)|vec'), for every event
# without key=: softirqs per CPU and vector; entries and exits per CPU
build_fixture lat-softirq
golden top-k-expr "$PP_ANALYZE" lat-softirq.ppcap top -e irq:softirq_entry -k '(_cpu<<16)|vec' ||
	fail "top -k EXPR"
golden top-k-cpu "$PP_ANALYZE" lat-softirq.ppcap top \
	-e irq:softirq_entry,irq:softirq_exit -k _cpu || fail "top -k _cpu"
golden top-interval "$PP_ANALYZE" $S top -e sched:sched_switch,irq:irq_handler_entry -i 2 || fail "top -i"
golden top-json "$PP_ANALYZE" $S top -e sched:sched_switch --format json || fail "top json"
golden top-csv "$PP_ANALYZE" $S top -e 'sched:sched_switch//key=next_pid/comm=next_comm/' --format csv ||
	fail "top csv"

# a thread renamed mid-capture: one row per name, each with its own count (rows remember
# the session's name ids; a new name must still be compared as text, not taken for the old)
sed -n '/^kv\|^event\|^task\|^sync/p' "$FIX/sched-basic.desc" | sed "s|formats/|$FIX/formats/|" >rename.desc
for t in 1 2 3; do
	echo "sample 1000.00${t}000 1 200 201 1 prev_comm=worker-2 prev_pid=201 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120"
done >>rename.desc
echo "comm 1000.004000 200 201 worker-renamed" >>rename.desc
for t in 5 6; do
	echo "sample 1000.00${t}000 1 200 201 1 prev_comm=worker-renamed prev_pid=201 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120"
done >>rename.desc
echo "comm 1000.007000 200 201 worker-2" >>rename.desc
echo "sample 1000.008000 1 200 201 1 prev_comm=worker-2 prev_pid=201 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120" >>rename.desc
"$CAPBUILD" rename.desc rename.ppcap || fail "capbuild rename.desc"
run_ok rename.out "$PP_ANALYZE" rename.ppcap top -e sched:sched_switch --format csv
cat rename.out
assert_eq "rows of tid 201 (worker-2 4, worker-renamed 2)" "201,2,worker-renamed 201,4,worker-2" \
	"$(grep '^201,' rename.out | sort | tr '\n' ' ' | sed 's/ $//')"

# -i: each table starts empty, and rows remembered for the last one are not found again
# (top caches rows by key: a thread counted in two intervals must show in the second)
sed -n '/^kv\|^event\|^task\|^sync/p' "$FIX/sched-basic.desc" | sed "s|formats/|$FIX/formats/|" >iv.desc
sw() {	# TIME CPU PID TID COMM
	echo "sample $1 $2 $3 $4 1 prev_comm=$5 prev_pid=$4 prev_prio=120 prev_state=1 next_comm=swapper/$2 next_pid=0 next_prio=120"
}
{
	for t in 1 2 3; do sw 1000.10${t}000 0 100 100 bash; done
	for t in 4 5; do sw 1000.10${t}000 1 200 201 worker-2; done
	for t in 1 2 3 4; do sw 1001.20${t}000 1 200 201 worker-2; done
	sw 1001.300000 0 1 1 systemd
} >>iv.desc
"$CAPBUILD" iv.desc iv.ppcap || fail "capbuild iv.desc"
run_ok iv.out "$PP_ANALYZE" iv.ppcap top -e sched:sched_switch -i 1000 --format csv
cat iv.out
assert_eq "two intervals' rows" "key,SCHED_SWITCH,comm 100,3,bash 201,2,worker-2 key,SCHED_SWITCH,comm 201,4,worker-2 1,1,systemd" \
	"$(tr '\n' ' ' <iv.out | sed 's/ $//')"

# errors name the problem
"$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_pid/' --only-comm 2>err.out && fail "--only-comm without names"
grep -q "only-comm needs names" err.out || { cat err.out; fail "--only-comm error"; }
"$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_comm/' 2>err.out && fail "array key accepted"
grep -q "arrays cannot be used" err.out || { cat err.out; fail "array key error"; }
"$PP_ANALYZE" $S top -e sched:sched_switch -k prev_comm 2>err.out && fail "array -k accepted"
grep -q "top: -k prev_comm of sched:sched_switch: a key is a number" err.out ||
	{ cat err.out; fail "array -k error"; }
"$PP_ANALYZE" $S top -e sched:sched_switch -k 'nope+1' 2>err.out && fail "bad -k accepted"
grep -q "unknown field 'nope'" err.out || { cat err.out; fail "-k with an unknown field"; }
"$PP_ANALYZE" $S top -e 'sched:sched_switch//comm=prev_pid/' 2>err.out && fail "numeric comm= accepted"
grep -q "must be a string" err.out || { cat err.out; fail "comm= type error"; }
"$PP_ANALYZE" $S top 2>err.out && fail "top without -e"
grep -q "needs events" err.out || { cat err.out; fail "top without -e error"; }
exit 0
