#!/bin/sh
# SPDX-License-Identifier: MIT
# t164-tracedat-hostile-format: a trace.dat whose event format crashes libtraceevent's parser
# is refused in one line naming the file, exit 2, no crash and no core: its headers are
# parsed in a child first (analyze/import/tdprobe.c), or an analysis's whole conversion
# runs in one (impchild.c).  Two crashes of tep_parse_event(): a
# __print_flags() on a field the event lacks (a NULL read) and a constant (1%0) in an
# argument (libtraceevent folds it: a division by zero).  The files are the fixtures of
# tests/fixtures/tracedat/ with sched_switch's print fmt edited, versions 6 and 7; the
# fixtures themselves still import.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "needs python3"
FIX=$TOP/tests/fixtures/tracedat
"$PP_ANALYZE" "$FIX/sched-v6.dat" info >good.txt 2>good.err
case $? in
0) ;;
*) grep -q "libtracecmd" good.err && skip "this build reads no trace.dat: $(cat good.err)"
   cat good.err; fail "the version 6 fixture does not import" ;;
esac
ulimit -c unlimited 2>/dev/null

# hostile IN OUT OLD NEW: IN with the first OLD after 'name: sched_switch' replaced by NEW
# (of the same length: no size changes)
hostile() {
	python3 -c "
import sys
b = open('$1', 'rb').read()
at = b.index(b'name: sched_switch')
at = b.index(b'$3', at)
open('$2', 'wb').write(b[:at] + b'$4' + b[at + len(b'$3'):])" ||
		fail "cannot edit $1"
}

for v in 6 7; do
	# t164.1 version 6, t164.2 version 7 (uncompressed sections)
	"$PP_ANALYZE" "$FIX/sched-v$v.dat" info >/dev/null 2>good.err ||
		{ cat good.err; fail "the version $v fixture does not import"; }
	# a field the event lacks (prev_stat_) in __print_flags(): SIGSEGV
	hostile "$FIX/sched-v$v.dat" bad$v.dat "__print_flags(REC->prev_state" \
		"__print_flags(REC->prev_stat_"
	one_line_error "version $v, hostile format" \
		"^pp-analyze: error: cannot import 'bad$v.dat' (trace.dat): libtraceevent cannot parse its event formats: it crashed (SIGSEGV)$" \
		"$PP_ANALYZE" bad$v.dat info
	one_line_error "version $v, hostile format, import" "'bad$v.dat'" \
		"$PP_ANALYZE" bad$v.dat import -o bad$v.ppcap
	# an analysis converts in a child of its own (impchild.c): the same line
	one_line_error "version $v, hostile format, trace" \
		"^pp-analyze: error: cannot import 'bad$v.dat' (trace.dat): libtraceevent cannot parse its event formats: it crashed (SIGSEGV)$" \
		"$PP_ANALYZE" bad$v.dat trace
	# 1 modulo 0 in the prev_state mask: SIGFPE
	hostile "$FIX/sched-v$v.dat" div$v.dat "0x00000000" "(1%0)     "
	one_line_error "version $v, division by zero" \
		"^pp-analyze: error: cannot import 'div$v.dat' (trace.dat): libtraceevent cannot parse its event formats: it crashed (SIGFPE)$" \
		"$PP_ANALYZE" div$v.dat info
	[ -z "$(ls core* 2>/dev/null)" ] || fail "a core was dumped: $(ls core*)"
done
exit 0
