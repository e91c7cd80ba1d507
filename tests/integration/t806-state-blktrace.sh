#!/bin/sh
# SPDX-License-Identifier: MIT
# t806-state-blktrace: blktrace's mergeable state (issue 19, 2026-12-05).  On t362's setup (an
# ext4 file system on a loop device, tests/load/dio reading 2000 random 4 KiB blocks with
# O_DIRECT) and on the built capture of t362's golden (tests/fixtures/blktrace.desc: every
# stage, a bypassed insert, a loss): at every cut the report of the merge of --time ,T and
# --time T+1ns, is the replay byte for byte (requests in flight at T are measured from where
# the first half left them), A+B = B+A; the merged issue => complete requests are the load's
# reads (to 1 %); -d and no -d do not merge; --than and -v refuse --state-out; hostile
# sections are refused or read.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

# t806.1 the golden fixture: a cut between each two of its events
build_fixture blktrace
CUTS=""
for t in 4000.000001 4000.0000105 4000.000025 4000.0001 4000.0003 4000.0009 4000.0015 4000.0021; do
	CUTS="$CUTS $(ns $t)"
done
check bt-fix blktrace.ppcap blktrace
check bt-fix-json blktrace.ppcap blktrace --format json
CUTS=""

# t806.2 a recorded load on a loop device
need_event block:block_rq_complete
loop_ext4 lsblk
N=2000
"$PP_LOAD/dio" -f "$T/mnt/dio.dat" -n 1 -s 4096 -F 8M >/dev/null 2>prep.err
rc=$?
[ $rc = 3 ] && skip "no O_DIRECT on ext4 here"
[ $rc = 0 ] || { cat prep.err; fail "dio setup run exited $rc"; }
sync
"$PP_RECORD" --for "blktrace -d $LOOP" -o bt.cap -- \
	"$PP_LOAD/dio" -f "$T/mnt/dio.dat" -n $N -s 4096 -F 8M -R >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
grep -q "^LOAD dio reads=$N size=4096 " rec.out || { cat rec.out; fail "no LOAD line"; }
grep -q ' lost: 0;' rec.out || skip "the recording lost events (busy machine): $(grep lost: rec.out)"

check bt bt.cap blktrace -d "$LOOP"
check bt-csv bt.cap blktrace -d "$LOOP" --format csv
check bt-all bt.cap blktrace
echo "t806: $checks cuts merged back into their replay"

# t806.3 ground truth: the load's reads completed in the merged halves' last stage
set -- $(cuts bt.cap)
run_ok /dev/null "$PP_ANALYZE" bt.cap blktrace -d "$LOOP" --time ",${2}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" bt.cap blktrace -d "$LOOP" --time "$(($2 + 1))ns," --state-out b.state
run_ok m.csv "$PP_ANALYZE" report a.state b.state --format csv
# (to the 1 %: a request blktrace cannot follow whole - a getrq of a sector still tracked, a
# stage out of order - is not measured, in one pass as in the merge)
assert_between "issue => complete requests of the merge" $((N * 99 / 100)) $((N + N / 10)) \
	"$(awk -F, '$1 == "block_rq_issue" { print $3 }' m.csv)"

# t806.4 refusals
run_ok /dev/null "$PP_ANALYZE" bt.cap blktrace --time "$(($2 + 1))ns," --state-out all.state
refused "-d and no -d" "different options" "$PP_ANALYZE" merge a.state all.state -o x.state
refused "--than" "blktrace: --than with --state-out" \
	"$PP_ANALYZE" bt.cap blktrace --than 1ms --state-out x.state
refused "-v" "blktrace: -v with --state-out" "$PP_ANALYZE" bt.cap blktrace -v --state-out x.state
[ -e x.state ] && fail "a refused --state-out wrote a state"

# t806.5 hostile sections: refused or read, never a crash
state_hostile a.state b.state
exit 0
