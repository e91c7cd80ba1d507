#!/bin/sh
# SPDX-License-Identifier: MIT
# t170-check: pp check and pp-record --check give the right verdicts on this machine and
# leave nothing behind.
#
# task-state and profile -g record here (exit 0); kvm-exit does not when no KVM guest runs
# (exit 1, the first reason names KVM); an event the kernel lacks, or -F above the kernel's
# limit, is a "no" with its reason (exit 1); a bad command line exits 2 with one line.
# pp-record --check alone lists the machine's lines; --format json parses and holds the
# same verdict.  The checks open events for real: no tracefs instance and no probe stays.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_tracefs

tfs=/sys/kernel/tracing

# t170.1: pp-record --check alone: the machine's lines and a verdict on the default recording
"$PP_RECORD" --check >m.out 2>m.err
assert_eq "pp-record --check: exit" 0 $?
for l in kernel user perf_event_paranoid perf_event_max_sample_rate perf_event_mlock_kb \
	tracefs uprobes kprobes BTF lockdown cgroup container "free space" "hardware PMU" \
	breakpoints clocks; do
	grep -q "^  $l  *\(yes\|no\|warn\|info\) " m.out || { cat m.out; fail "no line '$l'"; }
done
grep -q "^verdict: yes" m.out || { cat m.out; fail "pp-record --check: no yes verdict"; }
[ -s m.err ] && { cat m.err; fail "pp-record --check wrote to stderr"; }

# t170.2: the acceptance verdicts
"$PP" check task-state >ts.out 2>&1
assert_eq "pp check task-state: exit" 0 $?
grep -q "sched:sched_switch: opened" ts.out || { cat ts.out; fail "task-state: sched_switch not opened"; }
grep -q "^verdict: yes" ts.out || { cat ts.out; fail "task-state: verdict"; }
"$PP" check profile -g >pr.out 2>&1
assert_eq "pp check profile -g: exit" 0 $?
grep -q "cpu-clock: opened.*with call chains" pr.out || { cat pr.out; fail "profile -g: cpu-clock"; }

# kvm-exit: no KVM guest runs here.  Another test may start one meanwhile (a load that
# opens /dev/kvm): then the check must have seen it and said yes.
"$PP" check --format json kvm-exit >kvm.json
rc=$?
python3 -m json.tool kvm.json >/dev/null || { cat kvm.json; fail "kvm-exit: JSON does not parse"; }
if grep -q '"name": "KVM guests", "answer": "yes"' kvm.json; then
	assert_eq "pp check kvm-exit with a guest running: exit" 0 $rc
	echo "t170: a KVM guest ran during the check: its yes is checked instead"
else
	assert_eq "pp check --format json kvm-exit: exit" 1 $rc
	python3 -c '
import json, sys
j = json.load(open("kvm.json"))
assert j["schema"] == "pp-check/1", j["schema"]
assert j["analyzer"] == "kvm-exit", j["analyzer"]
assert j["verdict"]["run"] is False, j["verdict"]
assert "KVM" in j["verdict"]["reason"] or "kvm" in j["verdict"]["reason"], j["verdict"]
assert any(l["name"] == "perf_event_paranoid" for l in j["machine"]), j["machine"]
assert all(l["answer"] in ("yes", "no", "warn", "info") for l in j["machine"] + j["events"])
' || fail "kvm-exit: JSON content"
	"$PP" check kvm-exit >kvm.out 2>&1
	rc=$?
	if ! grep -q "KVM guests  *yes" kvm.out; then
		assert_eq "pp check kvm-exit: exit" 1 $rc
		grep -q "^verdict: no: .*\(KVM\|kvm\)" kvm.out || { cat kvm.out; fail "kvm-exit: the reason is not KVM"; }
	fi
fi

# t170.3: JSON of a yes
"$PP" check --format=json task-state >ts.json
assert_eq "json task-state: exit" 0 $?
python3 -c '
import json
j = json.load(open("ts.json"))
assert j["verdict"] == {"run": True, "reason": None, "fix": None}, j["verdict"]
assert [e["value"].split(":")[0] + ":" + e["value"].split(":")[1] for e in j["events"]][:1] == ["sched:sched_switch"], j["events"]
' || fail "task-state: JSON content"

# t170.4: what this kernel lacks is a no (exit 1) with its reason; a bad command line is 2
"$PP_RECORD" --check -e sched:no_such_event >ne.out 2>&1
assert_eq "a missing event: exit" 1 $?
grep -q "^verdict: no: event 'sched:no_such_event' does not exist" ne.out || { cat ne.out; fail "missing event: reason"; }
"$PP_RECORD" --check -e 'sched:sched_switch/no_such_field==1/' >nf.out 2>&1
assert_eq "a missing field: exit" 1 $?
grep -q "^verdict: no: .*unknown field 'no_such_field'" nf.out || { cat nf.out; fail "missing field: reason"; }
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$PP_RECORD" --check -F $((max + 1)) >rate.out 2>&1
assert_eq "-F above the limit: exit" 1 $?
grep -q "^verdict: no: -F $((max + 1)) is above the kernel's limit" rate.out || { cat rate.out; fail "-F: reason"; }
grep -q "fix: sysctl -w kernel.perf_event_max_sample_rate=" rate.out || { cat rate.out; fail "-F: fix"; }
# a field an analyzer's attribute names that this kernel's format lacks: a warning
"$PP" check top -e 'sched:sched_switch//key=no_such_field/' >attr.out 2>&1
assert_eq "key=no_such_field: exit" 0 $?
grep -q "field  *warn  sched:sched_switch: key=no_such_field: unknown field 'no_such_field'" attr.out ||
	{ cat attr.out; fail "key=no_such_field: no warning"; }
"$PP" check top -e 'sched:sched_switch//key=prev_pid/' >attr2.out 2>&1
grep -q "field  *warn" attr2.out && { cat attr2.out; fail "key=prev_pid warned"; }
one_line_error "an unknown analyzer" "no analyzer 'no-such-analyzer'" "$PP" check no-such-analyzer
one_line_error "a bad analyzer option" "unknown option" "$PP" check task-state --no-such-option
one_line_error "a bad --format" "expected text or json" "$PP_RECORD" --check --format xml
one_line_error "a bad pp check option" "unknown option" "$PP" check --bogus

# t170.5: a COMMAND is forked and held, never run; a uprobe is placed and removed
"$PP" check task-state -- touch ran >cmd.out 2>&1
assert_eq "pp check task-state -- touch: exit" 0 $?
[ -e ran ] && fail "the COMMAND ran during the check"
if [ -e $tfs/uprobe_events ]; then
	"$PP_RECORD" --check -e "uprobe:$PP_LOAD/sleeper:main" -- "$PP_LOAD/sleeper" 1 1 >up.out 2>&1 ||
		{ cat up.out; fail "a uprobe check"; }
	grep -q "opened, read through the perf ring (uprobe)" up.out || { cat up.out; fail "uprobe line"; }
fi

# t170.6: a kernel without perf_event_open (ENOSYS, PP_FAULT): one line naming the kernel
# needed, and pp-record --check's verdict no
PP_FAULT=perf_event_open:1+:ENOSYS "$PP_RECORD" -e cpu-clock -o nosys.pp --duration 0.1 \
	>nosys.out 2>nosys.err
assert_eq "no perf_event_open: exit" 1 $?
assert_eq "no perf_event_open: stderr lines" 1 "$(wc -l <nosys.err)"
grep -q "this kernel has no perf events (perf_event_open: Linux 2.6.31" nosys.err ||
	{ cat nosys.err; fail "no perf_event_open: the message"; }
PP_FAULT=perf_event_open:1+:ENOSYS "$PP_RECORD" --check >nosys.check 2>&1
assert_eq "no perf_event_open: --check exit" 1 $?
grep -q "^verdict: no: .*no perf events" nosys.check || { cat nosys.check; fail "--check: reason"; }

# t170.7: tracefs not mounted (a private mount namespace): the check mounts it to try the
# events, says it is mountable, and unmounts it again, also when the answer is no
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private sh -c "umount $tfs && \"$PP_RECORD\" --check --for task-state \
		>um.out 2>um.err; echo \$? >um.rc; \"$PP_RECORD\" --check -e sched:no_such_event \
		>um2.out 2>&1; grep -c ' tracefs ' /proc/self/mounts >um.mounts"
	[ -s um.rc ] || skip "cannot unmount tracefs in a private mount namespace"
	assert_eq "tracefs unmounted: exit" 0 "$(cat um.rc)"
	grep -q "tracefs  *yes   not mounted; mountable" um.out || { cat um.out um.err; fail "tracefs line"; }
	grep -q "^verdict: yes" um.out || { cat um.out; fail "tracefs unmounted: verdict"; }
	assert_eq "tracefs mounts left in the namespace" 0 "$(cat um.mounts)"
fi

# t170.8: as nobody (no capabilities), tracefs is root's: task-state does not record, the
# first reason says tracefs, and the tracefs line says it is mounted but not open
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 && [ -n "$(stat -c %a $tfs/events)" ] &&
	! setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all \
		test -r $tfs/events/sched 2>/dev/null; then
	chmod 777 "$T"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all \
		"$PP" check task-state >nb.out 2>&1
	assert_eq "as nobody: exit" 1 $?
	grep -q "^verdict: no: tracefs .*is not open to this user" nb.out || { cat nb.out; fail "as nobody: reason"; }
	grep -q "tracefs  *warn  mounted at $tfs, but not open to this user" nb.out ||
		{ cat nb.out; fail "as nobody: tracefs line"; }
fi

# t170.9: nothing left in tracefs
assert_eq "tracefs instances left by a pp-record that is gone" 0 "$(leaked_instances)"
no_pp_probes "after the checks"
echo "t170: ok"
