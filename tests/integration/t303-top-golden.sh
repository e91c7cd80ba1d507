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
golden top-interval "$PP_ANALYZE" $S top -e sched:sched_switch,irq:irq_handler_entry -i 2 || fail "top -i"
golden top-json "$PP_ANALYZE" $S top -e sched:sched_switch --format json || fail "top json"
golden top-csv "$PP_ANALYZE" $S top -e 'sched:sched_switch//key=next_pid/comm=next_comm/' --format csv ||
	fail "top csv"

# errors name the problem
"$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_pid/' --only-comm 2>err.out && fail "--only-comm without names"
grep -q "only-comm needs names" err.out || { cat err.out; fail "--only-comm error"; }
"$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_comm/' 2>err.out && fail "array key accepted"
grep -q "arrays cannot be used" err.out || { cat err.out; fail "array key error"; }
"$PP_ANALYZE" $S top -e 'sched:sched_switch//comm=prev_pid/' 2>err.out && fail "numeric comm= accepted"
grep -q "must be a string" err.out || { cat err.out; fail "comm= type error"; }
"$PP_ANALYZE" $S top 2>err.out && fail "top without -e"
grep -q "needs events" err.out || { cat err.out; fail "top without -e error"; }
exit 0
