#!/bin/sh
# SPDX-License-Identifier: MIT
# t104-record-uprobe: a uprobe and a uretprobe on a function called exactly K times give K
# events each, and uprobe_events holds no pp probe afterwards: after a normal end, after
# SIGINT mid-run, and after an error in the middle of setting up.  A probe left by a
# SIGKILLed pp-record is removed by the next start.  A symbol that is not unique is refused
# with its candidates; the 0xOFFSET form works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_tracefs
[ -e /sys/kernel/tracing/uprobe_events ] || skip "the kernel has no uprobe_events"

T_BIN=$PP_LOAD/uprobe_target
K=700

# 1. K calls -> K uprobe and K uretprobe events; nothing left afterwards
"$PP_RECORD" -e "uprobe:$T_BIN:pp_probe_target,uretprobe:$T_BIN:pp_probe_target" \
	-o up.cap -- "$T_BIN" -n $K -m call 2>rec.err >/dev/null
rc=$?
cat rec.err
assert_eq "pp-record exit status" 0 $rc
assert_eq "uprobe events" $K "$("$CAPCHECK" up.cap summary | sed -n 's/^events.uprobes:pp_probe_target=//p')"
assert_eq "uretprobe events" $K \
	"$("$CAPCHECK" up.cap summary | sed -n 's/^events.uprobes:pp_probe_target__return=//p')"
no_pp_probes "after a normal end"

# 2. the file-offset form gives the same count (the offset from pp-record -v's probe line)
"$PP_RECORD" -v -e "uprobe:$T_BIN:pp_probe_target" -o up1.cap --duration 0.001 2>v.err
foff=$(sed -n 's/.*probe p:pp_[0-9]*\/pp_probe_target [^ ]*:\(0x[0-9a-f]*\): created.*/\1/p' v.err)
[ -n "$foff" ] || { cat v.err; fail "no probe line in pp-record -v output"; }
"$PP_RECORD" -e "uprobe:$T_BIN:$foff" -o off.cap -- "$T_BIN" -n 50 -m call \
	>/dev/null 2>off.err || { cat off.err; fail "uprobe at $foff"; }
n=$("$CAPCHECK" off.cap summary | sed -n 's/^events\.uprobes:p_uprobe_target_.*=//p')
assert_eq "uprobe at file offset $foff" 50 "$n"
no_pp_probes "after the offset form"

# 3. SIGINT mid-run: the capture is finalized and the probe removed
"$PP_RECORD" -e "uprobe:$T_BIN:pp_probe_target" -o int.cap -- "$T_BIN" -n 100000 -p 1000 -m call \
	>/dev/null 2>int.err &
rpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q "pp_$rpid/pp_probe_target" /sys/kernel/tracing/uprobe_events && break
	sleep 0.5
done
grep -q "pp_$rpid/pp_probe_target" /sys/kernel/tracing/uprobe_events || fail "no probe while recording"
sleep 1.5	# the command runs, about 1000 calls a second
kill -INT $rpid
wait $rpid
no_pp_probes "after SIGINT"
n=$("$CAPCHECK" int.cap summary | sed -n 's/^events.uprobes:pp_probe_target=//p')
assert_ge "events before SIGINT" 100 "$n"
assert_eq "SIGINT capture has its index" 0 "$(sv int.cap truncated)"

# 4. an error after the probe is made (an unknown event next in the list): no probe left
"$PP_RECORD" -e "uprobe:$T_BIN:pp_probe_target,sched:no_such_event" --duration 1 -o err.cap \
	2>bad.err
assert_eq "exit status of a bad event list" 2 $?
no_pp_probes "after an error mid-setup"

# 5. SIGKILL leaves a probe; the next pp-record removes it, even one without probes
"$PP_RECORD" -e "uprobe:$T_BIN:pp_probe_target" -o kill.cap --duration 30 2>/dev/null &
kpid=$!
sleep 1
grep -q "pp_$kpid/" /sys/kernel/tracing/uprobe_events || fail "no probe of pp-record $kpid"
kill -KILL $kpid
wait $kpid 2>/dev/null
grep -q "pp_$kpid/" /sys/kernel/tracing/uprobe_events || fail "SIGKILL removed the probe?"
"$PP_RECORD" -e sched:sched_switch -o next.cap --duration 0.1 2>next.err
cat next.err
grep -q "pp_$kpid/" /sys/kernel/tracing/uprobe_events && fail "the stale probe of $kpid is still there"
grep -q "removed" next.err || fail "the cleanup was not reported"
no_pp_probes "after the cleanup"

# 6. a symbol defined twice: refused with both candidates, exit 2
if command -v cc >/dev/null 2>&1; then
	printf 'static int __attribute__((noinline,used)) dup(int x) { return x + 1; }\nint one(int x) { return dup(x); }\n' >a.c
	printf 'static int __attribute__((noinline,used)) dup(int x) { return x + 2; }\nint two(int x) { return dup(x); }\nint one(int);\nint main(void) { return one(1) + two(2) == 99; }\n' >b.c
	if cc -O1 -o dup a.c b.c 2>/dev/null; then
		"$PP_RECORD" -e "uprobe:$T/dup:dup" --duration 0.1 -o dup.cap 2>dup.err
		assert_eq "exit status for a duplicate symbol" 2 $?
		cat dup.err
		assert_eq "one line" 1 "$(wc -l <dup.err)"
		grep -q "not unique" dup.err || fail "no 'not unique' in the message"
		[ "$(grep -o '0x[0-9a-f]*' dup.err | sort -u | wc -l)" -ge 2 ] ||
			fail "the candidates' offsets are not listed"
		no_pp_probes "after a refused probe"
	fi
fi
exit 0
