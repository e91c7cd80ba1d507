#!/bin/sh
# SPDX-License-Identifier: MIT
# t833-jobs-fallback: what -j N does not run in parts (issue 19).  Analyzers without a state
# (trace, sql, export), listings
# (--than, -v, --detail, -N), an -i that ends within the capture, and a stream read from a
# pipe: one thread, the output of -j 1, and with -v one line that says why.  Bad -j values
# are refused in one line (status 2); a bad PP_JOBS is ignored.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
F=$TOP/tests/fixtures
"$CAPBUILD" -s 1 "$F/sched-basic.desc" s.ppcap || fail "capbuild"
"$CAPBUILD" -s 1 "$F/lat-syscalls.desc" l.ppcap || fail "capbuild"

# one CAPTURE WHY ARGS...: -j 4 -v prints -j 1's bytes and says once "one thread: ...WHY"
one() {
	rm -f hm
	_c=$1 _why=$2
	shift 2
	"$PP_ANALYZE" -j 1 "$_c" "$@" >one.1 2>one.err1
	_rc1=$?
	"$PP_ANALYZE" -v -j 4 "$_c" "$@" >one.4 2>one.err4
	_rc4=$?
	[ $_rc1 = $_rc4 ] || fail "$*: exit $_rc4 with -j 4, $_rc1 with -j 1"
	cmp -s one.1 one.4 || { diff -u one.1 one.4 | head; fail "$*: -j 4 differs"; }
	assert_eq "'$*' says why once" 1 "$(grep -c "one thread: .*$_why" one.err4)"
	grep -q ' parts$' one.err4 && fail "$*: ran in parts"
	echo "ok: $* -> $(grep 'one thread' one.err4)"
}
one s.ppcap "trace: it has no mergeable state" trace
one s.ppcap "sql: it has no mergeable state" sql --query 'SELECT count(*) FROM sched_switch'
one s.ppcap "task-state: it lists events" task-state --than 1us
one s.ppcap "num-dist: it lists events" num-dist -e 'sched:sched_switch//num=prev_prio/' -v
one s.ppcap "top: -N takes the first events" top -e sched:sched_switch -N 2
one s.ppcap "top: -i prints" top -e sched:sched_switch -i 1
one s.ppcap "task-state: its side files" task-state --heatmap hm
one l.ppcap "export: it has no mergeable state" export --to csv
# a chain runs in parts only when every analyzer can: one pass for both
one s.ppcap "trace: it has no mergeable state" task-state , trace

# t833.2 a stream is read by one thread, whatever -j says
"$PP_ANALYZE" -j 1 s.ppcap task-state --perins >file.out || fail "file"
cat s.ppcap | "$PP_ANALYZE" -v -j 4 - task-state --perins >pipe.out 2>pipe.err || { cat pipe.err; fail "pipe"; }
cmp -s file.out pipe.out || fail "the stream's report differs"
grep -q 'a stream is replayed by one thread' pipe.err || { cat pipe.err; fail "-v did not say it"; }
# and a file in parts, for contrast
"$PP_ANALYZE" -v -j 4 s.ppcap task-state --perins >parts.out 2>parts.err
grep -q ' in [0-9]* parts' parts.err || { cat parts.err; fail "the file did not run in parts"; }
cmp -s file.out parts.out || fail "the parts' report differs"

# t833.3 without -v nothing is said about threads
"$PP_ANALYZE" -j 4 s.ppcap trace >/dev/null 2>quiet.err
[ -s quiet.err ] && { cat quiet.err; fail "-j 4 on trace said something without -v"; }

# t833.4 bad values
"$PP_ANALYZE" -j -1 s.ppcap task-state >/dev/null 2>bad.err
assert_eq "-j -1 status" 2 $?
grep -q -- '-j -1: the number of threads is 1 or more' bad.err || { cat bad.err; fail "-j -1 message"; }
"$PP_ANALYZE" -j x s.ppcap task-state >/dev/null 2>bad.err
assert_eq "-j x status" 2 $?
PP_JOBS=many "$PP_ANALYZE" s.ppcap task-state --perins >env.out 2>env.err || { cat env.err; fail "PP_JOBS=many"; }
cmp -s file.out env.out || fail "PP_JOBS=many changed the report"
PP_JOBS=3 "$PP_ANALYZE" -v s.ppcap task-state --perins >env.out 2>env.err
grep -q -- '-j 3: ' env.err || { cat env.err; fail "PP_JOBS=3 was not the default"; }
"$PP_ANALYZE" --help | grep -q -- '-j, --jobs' || fail "--help does not list -j"
exit 0
