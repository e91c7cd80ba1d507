#!/bin/sh
# SPDX-License-Identifier: MIT
# t153-import-perf-pipe: perf record -o - (pipe mode) straight into pp-analyze -:
# task-state reads the stream as it comes and counts the sleeper's K S stays (K-2..K+1,
# as t150); the same stream saved to a file (tee) and read afterwards gives the same
# report byte for byte; import -o of the saved stream, then info, says pipe mode.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event sched:sched_wakeup
command -v perf >/dev/null || skip "needs perf (linux-perf)"

K=30
perf record -B -N -q -a -m 1024 -e sched:sched_switch,sched:sched_wakeup -o - -- \
	"$PP_LOAD/sleeper" -n $K -s 10ms 2>rec.err | tee pipe.data |
	"$PP_ANALYZE" - task-state --perins >live.txt 2>live.err || { cat live.err; fail "pp-analyze -"; }
load=$(grep '^LOAD sleeper' rec.err) || { cat rec.err; fail "no LOAD line"; }
tid=$(printf '%s\n' "$load" | tr ' ' '\n' | sed -n 's/^tids=//p')
grep -q 'written by perf .*(pipe mode)' live.err || { cat live.err; fail "the stream is not said to be perf's pipe mode"; }
n=$(awk -v t="$tid" '$1 == t && $3 == "S" { print $4 }' live.txt)
[ -n "$n" ] || { cat live.txt; fail "no S row for the sleeper $tid"; }
assert_between "S stays of the sleeper, live" $((K - 2)) $((K + 1)) "$n"

"$PP_ANALYZE" pipe.data task-state --perins >file.txt 2>/dev/null || fail "task-state on the saved stream"
cmp -s live.txt file.txt || { diff live.txt file.txt | head; fail "live and saved differ"; }

"$PP_ANALYZE" pipe.data import -o pipe.ppcap 2>imp.err || { cat imp.err; fail "import -o"; }
"$PP_ANALYZE" pipe.ppcap info >info.txt || fail "info"
grep -q '^recorder .*perf .*(pipe mode), imported' info.txt || { cat info.txt; fail "info: no recorder line"; }
exit 0
