#!/bin/sh
# SPDX-License-Identifier: MIT
# t804-state-sched-kvm: mergeable state of oncpu, sched-migrate and kvm-exit (issue 19,
# 2026-12-05).  oncpu (per CPU, --detail, --only-comm, per thread) and sched-migrate on a
# system-wide recording of tests/load/ctxsw (two threads switching 40000 times, unpinned: they
# migrate), kvm-exit on the committed fixture of t364 (this machine runs no guest) and on a copy
# of it with a loss in the middle: at three cuts each the report of the merge of the halves is
# the replay byte for byte, A+B = B+A; the merged migrations are the capture's; states of other
# options refuse to merge; listings, irq-off and kvmmmu refuse --state-out in one line; hostile
# sections are refused or read.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"
need_event sched:sched_switch
need_event sched:sched_migrate_task

"$PP_RECORD" -a -m 1024 -e sched:sched_switch,sched:sched_migrate_task,sched:sched_stat_runtime \
	-o sched.ppcap -- "$PP_LOAD/ctxsw" -n 20000 >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record exited $?"; }
grep -q ' lost: 0;' rec.err || skip "the recording lost events (busy machine): $(grep lost: rec.err)"
load=$(grep '^LOAD ctxsw' rec.err) || { cat rec.err; fail "no LOAD line"; }
PID=$(load_field "$load" pid)
MIGR=$("$PP_ANALYZE" sched.ppcap info | awk '$1 == "sched:sched_migrate_task" { print $2 }')
[ "${MIGR:-0}" -ge 2 ] || skip "only ${MIGR:-0} migrations recorded: nothing to cut"

# t804.1 oncpu: runs across the cut are charged once (the replay with one table: -i beyond
# the capture, as a state is printed)
ONE_ARGS="-i 1000000"
check oc sched.ppcap oncpu
check oc-detail sched.ppcap oncpu --detail
check oc-comm-json sched.ppcap oncpu --only-comm --format json
if "$PP_ANALYZE" sched.ppcap info | grep -q '^  sched:sched_stat_runtime'; then
	check oc-thread sched.ppcap oncpu -p "$PID" --format csv
fi
ONE_ARGS=""

# t804.2 sched-migrate: the counts add, to the capture's migrations
check sm sched.ppcap sched-migrate
check sm-csv sched.ppcap sched-migrate --format csv
set -- $(cuts sched.ppcap)
run_ok /dev/null "$PP_ANALYZE" sched.ppcap sched-migrate --time ",${2}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap sched-migrate --time "$(($2 + 1))ns," --state-out b.state
run_ok sm.csv "$PP_ANALYZE" report a.state b.state --format csv
assert_eq "migrations of the merge" "$MIGR" "$(awk -F, 'NR == 2 { print $2 }' sm.csv)"

# t804.3 kvm-exit (t364's fixture): an exit and its entry on either side of a cut pair; a loss
# in the second half drops the exits waiting before it, as the replay does
build_fixture kvm-exit
sed -e "s|formats/|$FIX/formats/|" -e '/^sample 3000.002400/i lost 3000.002000000 0 3' \
	"$FIX/kvm-exit.desc" >kvm-lost.desc
"$CAPBUILD" kvm-lost.desc kvm-lost.ppcap || fail "capbuild kvm-lost"
# cuts inside exits of both threads: 3000.000101 (1001's first), 3000.000155 (1002's),
# 3000.000650 (1002's exit twice), 3000.002100 (the HLT, before the loss)
CUTS="$(ns 3000.000101) $(ns 3000.000155) $(ns 3000.000650) $(ns 3000.0021)"
for c in kvm-exit kvm-lost; do
	check "$c" $c.ppcap kvm-exit
	check "$c-perins" $c.ppcap kvm-exit --perins
	check "$c-cpu" $c.ppcap kvm-exit --perins -C 0-1 --format json
done
CUTS=""
echo "t804: $checks cuts merged back into their replay"

# t804.4 refusals: other options, listings, streams
run_ok /dev/null "$PP_ANALYZE" kvm-exit.ppcap kvm-exit --time ",$(ns 3000.0005)ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" kvm-exit.ppcap kvm-exit --perins --time "$(ns 3000.0005)ns," \
	--state-out b.state
refused "kvm-exit, other options" "different options" "$PP_ANALYZE" merge a.state b.state -o x.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap oncpu --time ",${2}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap oncpu --detail --time "$(($2 + 1))ns," --state-out b.state
refused "oncpu, other options" "different options" "$PP_ANALYZE" report a.state b.state
refused "kvm-exit --than" "kvm-exit: --than with --state-out" \
	"$PP_ANALYZE" kvm-exit.ppcap kvm-exit --than 1ms --state-out x.state
refused "sched-migrate --detail" "sched-migrate: --detail with --state-out" \
	"$PP_ANALYZE" sched.ppcap sched-migrate --detail --state-out x.state
refused "oncpu -i" "a state holds the whole range" \
	"$PP_ANALYZE" sched.ppcap oncpu -i 100 --state-out x.state
refused "irq-off" "irq-off prints a sequence in time order, which stays single-stream" \
	"$PP_ANALYZE" sched.ppcap irq-off --state-out x.state
build_fixture kvmmmu
refused "kvmmmu" "kvmmmu prints a sequence in time order, which stays single-stream" \
	"$PP_ANALYZE" kvmmmu.ppcap kvmmmu --state-out x.state
[ -e x.state ] && fail "a refused --state-out wrote a state"

# t804.5 hostile sections: refused or read, never a crash
run_ok /dev/null "$PP_ANALYZE" sched.ppcap oncpu --time ",${2}ns" --state-out oc.state
run_ok /dev/null "$PP_ANALYZE" kvm-lost.ppcap kvm-exit --perins --time ",$(ns 3000.0021)ns" \
	--state-out kx.state
run_ok /dev/null "$PP_ANALYZE" sched.ppcap sched-migrate --state-out sm.state
state_hostile oc.state kx.state sm.state
exit 0
