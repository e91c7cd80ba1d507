#!/bin/sh
# SPDX-License-Identifier: MIT
# t308-losses: the losses of the analysed range are told by every report: trace
# puts them in its stream (text and json), top and num-dist above their table,
# and on stderr when the output is json or csv; --time leaves out the losses
# outside its range.  sched-basic has one LOST: 7 events on cpu 1 at 1000.004.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
S=sched-basic.ppcap

# t308.1 trace: a line where the loss happened, between the events around it
run_ok t.out "$PP_ANALYZE" $S trace -e sched:sched_switch
grep -n . t.out | grep -q '^4:# 7 events lost on cpu1 at 2026-01-01 00:00:00.004000 (1000.004000)$' ||
	{ cat t.out; fail "trace: no loss line between 1000.003 and 1000.005"; }
run_ok j.out "$PP_ANALYZE" $S trace -e sched:sched_switch --format json
grep -qx '{"lost":7,"cpu":1,"time":1000.004000}' j.out || { cat j.out; fail "trace json: no loss object"; }
"$PP_ANALYZE" $S trace -e sched:sched_switch --format csv >c.out 2>c.err || fail "trace csv"
grep -q 'lost' c.out && fail "trace csv: a loss among the rows"
grep -q 'trace: 7 events lost: cpu1=7' c.err || { cat c.err; fail "trace csv: loss not on stderr"; }

# t308.2 top and num-dist: above the table in text, on stderr in json/csv (stdout stays parseable)
run_ok top.out "$PP_ANALYZE" $S top -e sched:sched_switch
head -1 top.out | grep -qx '# 7 events lost: cpu1=7' || { cat top.out; fail "top: no loss line"; }
"$PP_ANALYZE" $S top -e sched:sched_switch --format json >top.json 2>top.err || fail "top json"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' top.json || fail "top json parse"
grep -q 'top: 7 events lost: cpu1=7' top.err || { cat top.err; fail "top json: loss not on stderr"; }
"$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/' --format csv >nd.csv 2>nd.err ||
	fail "num-dist csv"
head -1 nd.csv | grep -q '^event,calls' || { cat nd.csv; fail "num-dist csv header"; }
grep -q 'num-dist: 7 events lost: cpu1=7' nd.err || { cat nd.err; fail "num-dist csv: loss not on stderr"; }

# t308.3 --time: only the losses of the range
for range in 1000.0045,1000.006 +0,+3ms; do
	run_ok r.out "$PP_ANALYZE" $S top -e sched:sched_switch --time $range
	grep -q 'lost' r.out && { cat r.out; fail "--time $range: a loss outside the range reported"; }
	run_ok r.out "$PP_ANALYZE" $S trace -e sched:sched_switch --time $range
	grep -q 'lost' r.out && { cat r.out; fail "trace --time $range: a loss outside the range"; }
done
run_ok r.out "$PP_ANALYZE" $S top -e sched:sched_switch --time 1000.0035,1000.006
grep -q '^# 7 events lost: cpu1=7' r.out || { cat r.out; fail "--time around the loss: not reported"; }
exit 0
