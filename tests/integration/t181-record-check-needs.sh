#!/bin/sh
# SPDX-License-Identifier: MIT
# t181-record-check-needs: `pp-analyze FILE check ANALYZER` on captures built to lack one
# need each (issue 30): profile -g without stacks, kvm-exit's events absent (named, exit 1),
# losses (how many, on which CPU), --time past the capture, a recording stopped before its
# --duration, a narrower recorded filter; --format json; exit 0 when complete, 2 for a bad
# command line; and the analyzer's own one-line warning on stderr, its stdout unchanged.
# Needs neither root nor a kernel.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

# system-wide, every CPU, a cpu-clock without stacks, 5 events lost on CPU 1
cat >sys.desc <<-DESC
	kv release 6.18.0-test
	kv cpus_online 0-1
	kv record.cpus 0,1
	kv record.target system
	kv record.duration_ns 10000000000
	event 1 sched:sched_switch $FIX/formats/sched_switch.format
	event 2 sched:sched_wakeup $FIX/formats/sched_wakeup.format
	event 3 sched:sched_wakeup_new $FIX/formats/sched_wakeup_new.format
	event 4 cpu-clock - attr.type=1 attr.config=1
	event 5 sched:sched_migrate_task $FIX/formats/sched_migrate_task.format filter=pid==7 flags=stack
	sync 1000.000000000 1767225600.000000000
	sample 1000.000 0 0 0 1 prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=0 next_comm=a next_pid=7 next_prio=120
	sample 1000.500 1 7 7 4 ip=0xffffffff81000000
	lost 1000.600 1 5
	sample 1002.000 0 7 7 1 prev_comm=a prev_pid=7 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
	stat duration_ns 2000000000
DESC
"$CAPBUILD" sys.desc sys.pp || fail "capbuild"

# 1. task-state: events, scope, CPUs fine; the losses and the early stop are not
"$PP_ANALYZE" sys.pp check task-state >ts.out 2>ts.err
assert_eq "task-state check exit" 1 $?
[ -s ts.err ] && { cat ts.err; fail "check wrote to stderr"; }
grep -q '^events    ok      sched:sched_switch, sched:sched_wakeup, sched:sched_wakeup_new$' ts.out ||
	{ cat ts.out; fail "events line"; }
grep -q '^scope     ok      recorded system-wide$' ts.out || { cat ts.out; fail "scope line"; }
grep -q '^cpus      ok      every online CPU$' ts.out || { cat ts.out; fail "cpus line"; }
grep -q '^losses    no      5 events lost: cpu1=5 ' ts.out || { cat ts.out; fail "losses line"; }
grep -q '^time      no      recorded for 2.000 s of the 10.000 s --duration asked (stopped early)$' ts.out ||
	{ cat ts.out; fail "time line"; }
grep -q "^record    pp-record --for 'task-state' ...$" ts.out || { cat ts.out; fail "record line"; }

# 2. profile -g: cpu-clock has no stacks
"$PP_ANALYZE" sys.pp check profile -g >prof.out
assert_eq "profile -g check exit" 1 $?
grep -q '^stacks    no      no call stacks recorded for cpu-clock$' prof.out || { cat prof.out; fail "stacks"; }
# without -g, stacks are not needed
"$PP_ANALYZE" sys.pp check profile | grep -q '^stacks    n/a ' || fail "profile without -g needs stacks"

# 3. kvm-exit: its events are absent, named
"$PP_ANALYZE" sys.pp check kvm-exit >kvm.out
assert_eq "kvm-exit check exit" 1 $?
grep -q '^events    no      not in this capture: kvm:kvm_exit' kvm.out || { cat kvm.out; fail "kvm events"; }

# 4. --time past the capture's events
"$PP_ANALYZE" sys.pp check task-state --time 999,1003 >time.out
grep -q '^time      no      --time asks 999.000000..1003.000000, the capture.s events cover 1000.000000..1002.000000$' time.out ||
	{ cat time.out; fail "--time line"; }

# 5. recorded with the filter pid==7: sched-migrate of every task gets fewer
"$PP_ANALYZE" sys.pp check sched-migrate >mig.out
grep -q '^filters   no      recorded with a filter that keeps fewer events than asked: sched:sched_migrate_task$' mig.out ||
	{ cat mig.out; fail "filters line"; }

# 6. json: parseable, the same verdicts
"$PP_ANALYZE" sys.pp check --format json profile -g >prof.json
assert_eq "json exit" 1 $?
python3 - prof.json <<-'PY' || fail "json"
	import json, sys
	j = json.load(open(sys.argv[1]))
	needs = {n["need"]: n for n in j["needs"]}
	assert j["analyzer"] == "profile" and j["complete"] is False, j
	assert needs["stacks"]["state"] == "no", needs["stacks"]
	assert needs["losses"]["detail"].startswith("5 events lost: cpu1=5"), needs["losses"]
	assert list(needs) == ["events", "filters", "stacks", "scope", "cpus", "time", "losses",
			       "damage"], list(needs)
	assert j["record"] == "pp-record --for 'profile -g' ...", j["record"]
PY
# the analyzer's own --format json is check's too
"$PP_ANALYZE" sys.pp check profile -g --format json | python3 -c 'import json,sys; json.load(sys.stdin)' ||
	fail "check ANALYZER --format json"

# 7. complete: exit 0 (a capture without the keys that tell: unknown, never unmet)
cat >ok.desc <<-DESC
	kv release 6.18.0-test
	event 1 cpu-clock - attr.type=1 attr.config=1 flags=stack
	sample 1000.000 0 7 7 1 ip=0xffffffff81000000 stack=kernel,0xffffffff81000000
	sample 1001.000 0 7 7 1 ip=0xffffffff81000000 stack=kernel,0xffffffff81000000
DESC
"$CAPBUILD" ok.desc ok.pp || fail "capbuild ok"
"$PP_ANALYZE" ok.pp check profile -g >ok.out || { cat ok.out; fail "complete capture: exit $?"; }
grep -q '^verdict   complete$' ok.out || { cat ok.out; fail "verdict"; }
"$PP_ANALYZE" ok.pp profile -g >/dev/null 2>ok.err || fail "profile"
[ -s ok.err ] && { cat ok.err; fail "a complete capture warned"; }

# an analyzer that takes the capture's events as they are (no -e) names none
"$PP_ANALYZE" ok.pp check list >list.out || { cat list.out; fail "check list: exit $?"; }
grep -q "^events    n/a     none named: the capture's as they are$" list.out || { cat list.out; fail "list"; }

# 8. bad command lines: exit 2, one line; --help: exit 0
one_line_error "unknown analyzer" "check: unknown analyzer 'nosuch'" "$PP_ANALYZE" sys.pp check nosuch
one_line_error "no analyzer" "which analyzer" "$PP_ANALYZE" sys.pp check
one_line_error "bad --format" "--format is text or json" "$PP_ANALYZE" sys.pp check --format xml trace
"$PP_ANALYZE" sys.pp check --help >help.out || fail "--help"
grep -q 'pp-analyze FILE check \[--format text|json\] ANALYZER \[OPTIONS\]' help.out || fail "help"

# 9. the analyzer's warning: one line on stderr, stdout as without it
"$PP_ANALYZE" sys.pp profile -g >warn.out 2>warn.err
assert_eq "warning lines" 1 "$(grep -c 'warning: profile: incomplete answer: no call stacks recorded for cpu-clock' warn.err)"
grep -q "pp-record --for 'profile -g' ... records what it needs" warn.err || { cat warn.err; fail "names the recording"; }
"$PP_ANALYZE" sys.pp profile -g --format json >warn.json 2>/dev/null
python3 -c 'import json; [json.loads(l) for l in open("warn.json")]' || fail "json output stays parseable"
exit 0
