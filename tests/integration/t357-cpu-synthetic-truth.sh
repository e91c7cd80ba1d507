#!/bin/sh
# SPDX-License-Identifier: MIT
# t357-cpu-synthetic-truth: the CPU analyzers on captures built by capbuild from
# tests/fixtures/cpu/synth-*.desc, checked against the numbers those descriptions state
# (computed by hand, not by a previous run: the golden files of t356 could be regenerated
# from a wrong output, these cannot).  Needs neither root nor a kernel.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
dir=$TOP/tests/fixtures/cpu
for d in synth-sched synth-sched-4.9 synth-migrate synth-profile synth-irqoff; do
	"$CAPBUILD" "$dir/$d.desc" "$d.ppcap" || fail "capbuild $d"
done

# ts FILE TID STATE: "calls total_us" of a task-state --perins row
ts() { awk -v t="$2" -v s="$3" '$1 == t && $3 == s { print $4, $5 }' "$1"; }

# t357.1 task-state: every state of the three tasks, kernel >= 4.14
run_ok ts.out "$PP_ANALYZE" synth-sched.ppcap task-state --perins
assert_eq "alpha R" "3 29000.000" "$(ts ts.out 100 R)"
assert_eq "alpha S" "1 5000.000" "$(ts ts.out 100 S)"
assert_eq "alpha D" "1 20000.000" "$(ts ts.out 100 D)"
assert_eq "alpha RD" "2 6000.000" "$(ts ts.out 100 RD)"
assert_eq "beta R" "2 31000.000" "$(ts ts.out 200 R)"
assert_eq "beta RD" "1 10000.000" "$(ts ts.out 200 RD)"
assert_eq "gamma R" "3 19000.000" "$(ts ts.out 300 R)"
assert_eq "gamma RD" "3 4000.000" "$(ts ts.out 300 RD)"
assert_eq "gamma I" "1 10000.000" "$(ts ts.out 300 I)"
assert_eq "gamma T" "1 10000.000" "$(ts ts.out 300 T)"
assert_eq "gamma S (never woken)" "" "$(ts ts.out 300 S)"
run_ok s.out "$PP_ANALYZE" synth-sched.ppcap task-state --perins -S
assert_eq "-S rows" "100 S" "$(awk '$1 ~ /^[0-9]+$/ { print $1, $3 }' s.out | tr '\n' ' ' | sed 's/ $//')"
run_ok n.out "$PP_ANALYZE" synth-sched.ppcap task-state --perins --no-interruptible
assert_eq "--no-interruptible drops S" "" "$(ts n.out 100 S)"
assert_eq "--no-interruptible keeps D" "1 20000.000" "$(ts n.out 100 D)"

# t357.2 task-state before 4.14: 1024 is preempted, 0x82 is D, 64 is dead
run_ok old.out "$PP_ANALYZE" synth-sched-4.9.ppcap task-state --perins
assert_eq "old R" "3 22000.000" "$(ts old.out 100 R)"
assert_eq "old RD" "2 3000.000" "$(ts old.out 100 RD)"
assert_eq "old D" "1 5000.000" "$(ts old.out 100 D)"

# t357.3 oncpu: runs cut at the 50 ms tick, idle not shown; per thread from stat_runtime
run_ok oc.out "$PP_ANALYZE" synth-sched.ppcap oncpu -i 50 --detail
grep -qx '000 50      beta:200(30.0ms/1/20.0ms) alpha:100(20.0ms/2/10.0ms) ' oc.out || { cat oc.out; fail "oncpu interval 1"; }
grep -qx '000 10      alpha:100(9.0ms/1/9.0ms) beta:200(1.0ms/1/21.0ms) ' oc.out || { cat oc.out; fail "oncpu interval 2"; }
grep -qx '001 19      gamma:300(19.0ms/3/10.0ms) ' oc.out || { cat oc.out; fail "oncpu CPU1"; }
run_ok ot.out "$PP_ANALYZE" synth-sched.ppcap oncpu -p 100
grep -qx '100    alpha            29      0(20ms) 1(9ms) ' ot.out || { cat ot.out; fail "oncpu -p"; }

# t357.4 sched-migrate: 5 migrations, 3 within an LLC, 2 within an L2; the 2 cross-LLC
# ones printed by --detail, with the kernel stack
run_ok m.out "$PP_ANALYZE" synth-migrate.ppcap sched-migrate --detail -g
grep -q 'sched-migrate total 5, same LLC 3 hit 60%, same L2 2 hit 40%$' m.out || { cat m.out; fail "shares"; }
assert_eq "cross-LLC events" 2 "$(grep -c 'sched_migrate_task:' m.out)"
grep -q 'orig_cpu=1 dest_cpu=2' m.out && grep -q 'orig_cpu=3 dest_cpu=0' m.out || fail "wrong events"
grep -q '^    ffffffff81100410 move_queued_task+0x10 ' m.out || fail "no stack"

# t357.5 profile: self and children, recursion counted once, kernel frames optional
run_ok p.out "$PP_ANALYZE" synth-profile.ppcap profile -g -p 700 --format json
python3 - p.out <<'PY' || fail "profile shares"
import json, sys
s = {r["symbol"]: (round(r["self_pct"], 2), round(r["children_pct"], 2))
     for l in open(sys.argv[1]) if l.strip() for r in json.loads(l).get("symbols", [])}
want = {"g": (40, 60), "f": (20, 80), "main": (20, 100), "irq_handler": (20, 20)}
sys.exit(0 if all(s.get(k) == v for k, v in want.items()) else print(s) or 1)
PY
run_ok pk.out "$PP_ANALYZE" synth-profile.ppcap profile -g -p 700 --no-kernel-callchain
grep -Eq '^ +80\.00% +40\.00% +4 f$' pk.out || { cat pk.out; fail "f without kernel frames"; }
run_ok pf.out "$PP_ANALYZE" synth-profile.ppcap profile -g --flame-graph pf.folded
cat >expect <<'EOT'
other;[unknown] 3
prog;main 2
prog;main;f;g 4
prog;main;f;g;f 2
prog;main;f;irq_handler 2
EOT
check_output expect pf.folded

# t357.7 a capture of cycles samples (what the plan records on a machine with a PMU):
# profile without -e analyses them, with the same shares
sed 's/^event 1 cpu-clock - kind=2 /event 1 cycles - kind=3 /' "$dir/synth-profile.desc" >synth-cycles.desc
grep -q '^event 1 cycles ' synth-cycles.desc || fail "synth-cycles.desc"
"$CAPBUILD" synth-cycles.desc synth-cycles.ppcap || fail "capbuild synth-cycles"
run_ok pc.out "$PP_ANALYZE" synth-cycles.ppcap profile -g -p 700
grep -q '^profile: 10 samples of cycles, with call stacks$' pc.out || { cat pc.out; fail "cycles header"; }
grep -Eq '^ +60\.00% +40\.00% +4 g$' pc.out || { cat pc.out; fail "g from cycles samples"; }

# t357.6 irq-off: one window per CPU; the gap after a loss is not a window
run_ok io.out "$PP_ANALYZE" synth-irqoff.ppcap irq-off --than 2ms -g
grep -q '42/42      \[000\] 1000.010000: cpu-clock: 7000000 ns$' io.out || { cat io.out; fail "CPU0 window"; }
grep -q '\[001\] 1000.005000: cpu-clock: 4000000 ns$' io.out || fail "CPU1 window"
assert_eq "windows" 2 "$(grep -c ' ns$' io.out)"
grep -q '_raw_spin_unlock_irqrestore+0x10' io.out || fail "no kernel stack"
grep -q '0000000000401000' io.out && fail "the user frame is printed"
exit 0
