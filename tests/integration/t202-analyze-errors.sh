#!/bin/sh
# SPDX-License-Identifier: MIT
# t202-analyze-errors: errors name the problem and the fix: an event not in the
# capture lists the recorded ones and the pp-record command; a bad filter or
# expression gets a caret; an unknown option or attribute is named; exit 2
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
S=sched-basic.ppcap

# expect_err CMD... : exit status 2, stderr in err.out
expect_err() {
	"$@" >out.txt 2>err.out
	rc=$?
	[ $rc = 2 ] || { cat err.out; fail "'$*' exited $rc, not 2"; }
}

# t202.1 an event the capture does not have
expect_err "$PP_ANALYZE" $S trace -e sched:sched_migrate_task
cat >expect <<EOT
pp-analyze: error: trace: event 'sched:sched_migrate_task' is not in the capture 'sched-basic.ppcap'
  the capture has: sched:sched_switch, sched:sched_wakeup, irq:irq_handler_entry
  to record it: pp-record -e 'sched:sched_migrate_task' ...   (or: pp-record --for 'trace ...')
EOT
check_output expect err.out

# t202.2 a bad filter: the text and a caret under the bad token
expect_err "$PP_ANALYZE" $S trace -e 'sched:sched_switch/prev_pid >< 3/'
cat >expect <<'EOT'
pp-analyze: error: filter of sched:sched_switch: prev_pid >< 3
                                                           ^ unexpected '<'
EOT
check_output expect err.out
expect_err "$PP_ANALYZE" $S trace -e 'sched:sched_switch/no_such_field == 3/'
grep -q "\^ unknown field 'no_such_field'" err.out || { cat err.out; fail "unknown field"; }

# t202.3 a bad expression in an attribute
expect_err "$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_pid * (2/'
grep -q '\^' err.out || { cat err.out; fail "no caret for a bad key="; }

# t202.4 an unknown option, an unknown attribute, an unknown analyzer
expect_err "$PP_ANALYZE" $S trace --frobnicate
grep -q "trace: unknown option '--frobnicate'" err.out || { cat err.out; fail "unknown option"; }
expect_err "$PP_ANALYZE" $S trace -e 'sched:sched_switch//colour=red/'
grep -q "unknown attribute 'colour'" err.out || { cat err.out; fail "unknown attribute"; }
expect_err "$PP_ANALYZE" $S nosuch
grep -q "unknown analyzer or command 'nosuch'" err.out || { cat err.out; fail "unknown analyzer"; }

# t202.5 system() is refused offline
expect_err "$PP_ANALYZE" $S trace -e 'sched:sched_wakeup//exec=(system("true"))/'
grep -qi "system" err.out || { cat err.out; fail "system() refusal"; }
# t202.6 an empty or foreign stream on stdin: one line that says it was standard input
"$PP_ANALYZE" - info </dev/null >out.txt 2>err.out
[ $? = 2 ] || fail "empty stdin: not exit status 2"
check_output - err.out <<'EOT'
pp-analyze: error: cannot open capture '-' (standard input): empty file, not a pp capture
EOT
# t202.7 info runs alone, and names what it does not take
expect_err "$PP_ANALYZE" $S info , trace
grep -q "info: runs on its own: it does not combine with analyzers by ','" err.out || { cat err.out; fail "info ,"; }
expect_err "$PP_ANALYZE" $S info extra
grep -q "info: unexpected argument 'extra'" err.out || { cat err.out; fail "info extra"; }
# t202.8 -C with a CPU the recording machine did not have (sched-basic: 2 CPUs)
expect_err "$PP_ANALYZE" $S top -e sched:sched_switch -C 0-3
grep -q "top: -C 2: the capture was recorded on 2 CPUs (0-1)" err.out || { cat err.out; fail "-C 0-3"; }
exit 0
