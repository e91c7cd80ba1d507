#!/bin/sh
# SPDX-License-Identifier: MIT
# t182-analyze-old-kernel-formats: analyzers read fields through the capture's stored
# formats, never this kernel's layout (issue 30).  tests/fixtures/cpu/synth-sched.desc's
# events as a 4.18 kernel (RHEL 8) stores them (synth-sched-4.18.desc: sched_wakeup's
# `success` before target_cpu, sched_stat_runtime's inline comm and vruntime) and as a 4.9
# kernel does (synth-sched-4.9-all.desc, without a release key: prev_state's raw task bits,
# 2048 for a preempted task, TASK_DEAD 64, TASK_IDLE as D|N).  task-state, rundelay and
# oncpu must give the descriptions' truth: the same as on 6.18, but on 4.9 gamma's idle wait
# is a D (that kernel has no I), and beta's preemption at 20 ms (2048) still starts a run
# delay of 10 ms (read as 0x100, the 4.14 mark, it would not).  trace prints 4.9's letters.
# Needs neither root nor a kernel.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
for d in synth-sched synth-sched-4.18 synth-sched-4.9-all; do
	"$CAPBUILD" "$FIX/cpu/$d.desc" "$d.pp" || fail "capbuild $d"
done

# thread comm state calls total min max (us)
ts() {
	"$PP_ANALYZE" "$1.pp" task-state --perins >"$1.ts" 2>"$1.ts.err" ||
		{ cat "$1.ts.err"; fail "task-state $1"; }
	tail -n +4 "$1.ts" | awk '{ print $1, $2, $3, $4, $5, $6, $10 }'
}
cat >ts.expect <<-EOF
	100 alpha R 3 29000.000 9000.000 10000.000
	100 alpha S 1 5000.000 5000.000 5000.000
	100 alpha D 1 20000.000 20000.000 20000.000
	100 alpha RD 2 6000.000 1000.000 5000.000
	200 beta R 2 31000.000 10000.000 21000.000
	200 beta RD 1 10000.000 10000.000 10000.000
	300 gamma R 3 19000.000 4000.000 10000.000
	300 gamma T 1 10000.000 10000.000 10000.000
	300 gamma I 1 10000.000 10000.000 10000.000
	300 gamma RD 3 4000.000 1000.000 2000.000
EOF
ts synth-sched >ts.618
check_output ts.expect ts.618
ts synth-sched-4.18 >ts.418
check_output ts.expect ts.418
sed 's/^300 gamma I /300 gamma D /' ts.expect | sort >ts.expect49
ts synth-sched-4.9-all | sort >ts.49
check_output ts.expect49 ts.49

# pid comm start end calls total min max (us)
rd() {
	"$PP_ANALYZE" "$1.pp" rundelay --perins >"$1.rd" 2>"$1.rd.err" ||
		{ cat "$1.rd.err"; fail "rundelay $1"; }
	tail -n +4 "$1.rd" | awk '{ print $1, $2, $3, $5, $6, $7, $8, $12 }'
}
cat >rd.expect <<-EOF
	100 alpha sched_wakeup sched_switch 2 6000.000 1000.000 5000.000
	200 beta sched_switch sched_switch 1 10000.000 10000.000 10000.000
	300 gamma sched_wakeup sched_switch 2 2000.000 1000.000 1000.000
	300 gamma sched_wakeup_new sched_switch 1 2000.000 2000.000 2000.000
EOF
for d in synth-sched synth-sched-4.18 synth-sched-4.9-all; do
	rd $d >rd.$d
	check_output rd.expect rd.$d
done

# oncpu -p 100 reads sched_stat_runtime's runtime: 4.18 has it at offset 32, 6.18 at 16
for d in synth-sched synth-sched-4.18 synth-sched-4.9-all; do
	"$PP_ANALYZE" $d.pp oncpu -p 100 >oc.$d 2>/dev/null || fail "oncpu $d"
	grep -q '^100    alpha            29      0(20ms) 1(9ms) $' oc.$d || { cat oc.$d; fail "oncpu $d"; }
done

# trace prints prev_state with the capture's own letters
"$PP_ANALYZE" synth-sched-4.9-all.pp trace -e sched:sched_switch >tr.out 2>/dev/null || fail "trace"
for want in 'prev_pid=200 prev_prio=120 prev_state=R+' 'prev_pid=100 prev_prio=120 prev_state=x' \
	'prev_pid=300 prev_prio=120 prev_state=D|N'; do
	grep -qF "$want" tr.out || { cat tr.out; fail "trace: no '$want'"; }
done
exit 0
