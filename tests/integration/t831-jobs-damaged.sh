#!/bin/sh
# SPDX-License-Identifier: MIT
# t831-jobs-damaged: pp-analyze -j N on damaged copies of a real recording (issue 19): cut in
# the middle of a segment, one segment's payload corrupt, one segment's header corrupt, the
# index and trailer gone.  With -j 1, 2 and 4 the reports, the damage lines on stderr and
# the exit status are the same, and -j 2 ran in parts (the segment list comes from the
# headers when there is no index; damage is reported once, by the part that owns it).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_switch

"$PP_RECORD" -m 4096 -a -e sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new \
	-o rec.ppcap -- "$PP_LOAD/ctxsw" -n 80000 -c 0 >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record exited $?"; }
"$PP_ANALYZE" rec.ppcap dump >dump.out 2>/dev/null
# offsets of the EVENTS segments, and the file size
grep '^# segment [0-9]* events offset=' dump.out | sed 's/.*offset=\([0-9]*\).*/\1/' >offs
n=$(wc -l <offs)
assert_ge "events segments" 6 "$n"
size=$(stat -c %s rec.ppcap)
mid=$(sed -n "$((n / 2))p" offs)
third=$(sed -n "$((n / 3))p" offs)

# flip OFFSET FILE: the byte at OFFSET inverted
flip() {
	_b=$(od -An -tu1 -j "$1" -N1 "$2" | tr -d ' ')
	printf "$(printf '\\%03o' $((255 - _b)))" | dd of="$2" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
head -c $((mid + 200)) rec.ppcap >cut.ppcap
cp rec.ppcap payload.ppcap && flip $((mid + 64 + 40)) payload.ppcap
cp rec.ppcap header.ppcap && flip $((third + 1)) header.ppcap && flip $((mid + 64 + 40)) header.ppcap
head -c $((size - 16)) rec.ppcap >noindex.ppcap
"$PP_ANALYZE" cut.ppcap info | grep -q truncated || fail "cut.ppcap is not truncated"
"$PP_ANALYZE" payload.ppcap info | grep -q corrupt || fail "payload.ppcap is not damaged"

# same CAPTURE NAME ARGS...: -j 1, 2, 4: the same stdout, stderr and exit status
same() {
	_c=$1 _n=$2
	shift 2
	"$PP_ANALYZE" -j 1 "$_c" "$@" >"$_n.1" 2>"$_n.1.err"
	_rc1=$?
	[ -s "$_n.1" ] || { cat "$_n.1.err"; fail "$_n: nothing printed"; }
	for j in 2 4; do
		"$PP_ANALYZE" -v -j $j "$_c" "$@" >"$_n.$j" 2>"$_n.$j.v"
		_rc=$?
		[ $_rc = $_rc1 ] || fail "$_n: -j $j exits $_rc, -j 1 $_rc1"
		cmp -s "$_n.1" "$_n.$j" || { diff -u "$_n.1" "$_n.$j" | head -30; fail "$_n: -j $j differs"; }
		grep -v ' -j [0-9]*: ' "$_n.$j.v" >"$_n.$j.err"
		cmp -s "$_n.1.err" "$_n.$j.err" ||
			{ diff -u "$_n.1.err" "$_n.$j.err"; fail "$_n: -j $j says otherwise on stderr"; }
	done
	grep -q "in [0-9]* parts" "$_n.2.v" || { cat "$_n.2.v"; fail "$_n: -j 2 did not run in parts"; }
	echo "ok $_n (exit $_rc1): $(head -c 300 "$_n.1.err" | tr '\n' ' ')"
}
for c in cut payload header noindex; do
	same $c.ppcap $c-ts task-state --perins
	same $c.ppcap $c-top top -e sched:sched_switch -i 100000
	same $c.ppcap $c-json task-state --format json
done
# t831.2 what the damage costs is told in the report's header, once
grep -q '^# 1 corrupt segments skipped' payload-ts.2 || { cat payload-ts.2 | head -3; fail "no damage line in the -j 2 report"; }
grep -q "truncated" cut-ts.1.err || fail "no truncation warning"
exit 0
