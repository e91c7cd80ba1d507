#!/bin/sh
# SPDX-License-Identifier: MIT
# t180-record-check-pertask: issue 30's example, tried as a new user would.  The sleeper
# (K sleeps of 5 ms) recorded per task with -e sched_switch,sched_wakeup keeps only the
# events it emits itself: no switch into it, so task-state can print no S row.  task-state
# must say so on one stderr line, naming what is missing and the recording that has it
# (--for task-state), its stdout unchanged; `check` must exit 1 with scope "no", in text
# and json.  Recorded with --for task-state, the same load is complete: check exits 0,
# no warning, and the S row has the K sleeps (K-2..K: a sleep's wakeup is dropped now and
# then, see t351).
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

"$PP_RECORD" -e sched:sched_switch,sched:sched_wakeup -o a.pp -- \
	"$PP_LOAD/sleeper" -n 40 -s 5ms >rec.out 2>rec.err || { cat rec.err; fail "pp-record per task"; }
"$PP_ANALYZE" a.pp task-state >ts.out 2>ts.err || { cat ts.err; fail "task-state"; }
# (a stay or two may still show: the command's wait before its exec is the sleeper's own
# thread, and under ASan it was once switched back in by a followed task: 1 S stay)
s_calls=$(awk '$1 == "S" { print $2 }' ts.out)
[ "${s_calls:-0}" -le 2 ] || { cat ts.out; fail "$s_calls S stays from a per-task capture of 40 sleeps"; }
assert_eq "warning lines" 1 "$(wc -l <ts.err)"
grep -q "warning: task-state: incomplete answer: switches into the followed tasks .* are not in this capture: it followed the tasks of its COMMAND, not every CPU; pp-record --for 'task-state' ... records what it needs" ts.err ||
	{ cat ts.err; fail "the warning"; }
# the warning is stderr's alone: stdout is what it was without it
"$PP_ANALYZE" a.pp task-state 2>/dev/null | cmp -s - ts.out || fail "stdout changed by the warning"

"$PP_ANALYZE" a.pp check task-state >check.out 2>check.err
assert_eq "check exit (per task)" 1 $?
grep -q '^scope     no      switches into the followed tasks' check.out || { cat check.out; fail "scope"; }
grep -q '^events    no      not in this capture: sched:sched_wakeup_new$' check.out ||
	{ cat check.out; fail "events"; }
grep -q '^verdict   incomplete$' check.out || { cat check.out; fail "verdict"; }
"$PP_ANALYZE" a.pp check --format json task-state >check.json
python3 - check.json <<-'PY' || fail "json"
	import json, sys
	j = json.load(open(sys.argv[1]))
	needs = {n["need"]: n["state"] for n in j["needs"]}
	assert j["complete"] is False and needs["scope"] == "no" and needs["events"] == "no", j
	assert j["record"] == "pp-record --for 'task-state' ...", j
PY

"$PP_RECORD" --for task-state -o b.pp -- "$PP_LOAD/sleeper" -n 40 -s 5ms >rec2.out 2>rec2.err ||
	{ cat rec2.err; fail "pp-record --for task-state"; }
k=$(grep '^LOAD sleeper' rec2.err | tr ' ' '\n' | sed -n 's/^nanosleep=//p')
tid=$(grep '^LOAD sleeper' rec2.err | tr ' ' '\n' | sed -n 's/^tids=//p')
[ -n "$k" ] && [ -n "$tid" ] || { cat rec2.err; fail "no LOAD line"; }
"$PP_ANALYZE" b.pp check task-state >check2.out || { cat check2.out; fail "check exit (--for) $?"; }
grep -q '^scope     ok      recorded system-wide$' check2.out || { cat check2.out; fail "scope (--for)"; }
"$PP_ANALYZE" b.pp task-state --perins -t "$tid" >ts2.out 2>ts2.err || fail "task-state (--for)"
[ -s ts2.err ] && { cat ts2.err; fail "a warning on a complete capture"; }
calls=$(awk -v t="$tid" '$1 == t && $3 == "S" { print $4 }' ts2.out)
# one more when pp-record's child (the sleeper's tid before its exec) reached its wait for
# the go after the events were on: a slow (sanitized, busy) fork makes it so, as in t150
assert_between "S stays of the sleeper" $((k - 2)) $((k + 1)) "${calls:-0}"
exit 0
