#!/bin/sh
# SPDX-License-Identifier: MIT
# t809-state-care: event-care's mergeable state (issue 19, 2026-12-05).  On the built capture
# with a LATE event (care-late.desc) and on a recorded context-switch storm, the report of the
# merge of --time ,T and --time T+1ns, is the one-pass report byte for byte (text, JSON, CSV)
# with the same exit status (1 when there are problems), A+B and B+A are the same bytes, and
# the instances' events add up to the replay's; states of other options refuse to merge.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"

build_fixture care-late

# check NAME CAPTURE T FORMAT ARGS...: the status and the output of the merge are the replay's
check() {
	_name=$1 _cap=$2 _t=$3 _fmt=$4
	shift 4
	"$PP_ANALYZE" "$_cap" event-care "$@" --format "$_fmt" >one.out
	_rc=$?
	[ -s one.out ] || fail "$_name: the replay printed nothing"
	split_merge "$_name" "$_cap" "$_t" event-care "$@"
	"$PP_ANALYZE" report ab.state --format "$_fmt" >merged.out
	assert_eq "$_name: exit status of the report" "$_rc" "$?"
	diff -u one.out merged.out >diff.out || { cat diff.out; fail "$_name: the merge is not the replay"; }
	"$PP_ANALYZE" report a.state --format "$_fmt" >a.out
	cmp -s a.out one.out && fail "$_name: the first half alone is the whole"
	echo "ok $_name"
}

# t809.1 the LATE event of the fixture: in the first half, in the second
for t in 10.0002 10.00035; do
	check "late@$t" care-late.ppcap "$(ns $t)" text
	check "late-json@$t" care-late.ppcap "$(ns $t)" json
	check "late-csv@$t" care-late.ppcap "$(ns $t)" csv
done

# t809.2 a recorded storm: every event of the capture, per CPU and per thread
if [ "$(id -u)" = 0 ]; then
	"$PP_RECORD" -q -e sched:sched_switch,sched:sched_wakeup -o cs.cap -- "$PP_LOAD/ctxsw" -n 20000 \
		2>rec.err || { cat rec.err; fail "pp-record"; }
	"$PP_ANALYZE" cs.cap info | awk '$1 == "time" { print $2, $4; exit }' >span
	read -r first last <span
	T=$((($(ns "$first") + $(ns "$last")) / 2))
	check storm cs.cap "$T" text
	check storm-csv cs.cap "$T" csv
	# the states of the last check, without -p, hold every event of the capture
	"$PP_ANALYZE" cs.cap event-care --format csv >one.csv
	assert_eq "events of the merge" "$(awk -F, 'NR > 1 { s += $2 } END { print s }' one.csv)" \
		"$("$PP_ANALYZE" report a.state b.state --format csv | awk -F, 'NR > 1 { s += $2 } END { print s }')"
	pid=$(load_field "$(grep '^LOAD ctxsw' rec.err)" pid)
	check storm-pid cs.cap "$T" text -p "$pid"
else
	echo "t809.2 skipped: recording needs root"
fi

# t809.3 other options refuse to merge
T=$(ns 10.0002)
run_ok /dev/null "$PP_ANALYZE" care-late.ppcap event-care --time ",${T}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" care-late.ppcap event-care -C 0 --time "$((T + 1))ns," --state-out b.state
"$PP_ANALYZE" merge a.state b.state -o x.state 2>err.out && fail "t809.3: other -C merged"
grep -q "different options" err.out || { cat err.out; fail "t809.3: message"; }
exit 0
