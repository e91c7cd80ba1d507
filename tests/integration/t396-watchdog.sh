#!/bin/sh
# SPDX-License-Identifier: MIT
# t396-watchdog: watchdog (perf-prof's lockup prediction) on a built capture
# (tests/fixtures/watchdog.desc): CPU 0 healthy, its watchdog cancelled late; CPU 1 held by a
# task for 9 s (its stopper thread does not run: soft lockup foretold), then with interrupts
# off for 4.3 s (no watchdog hrtimer: hard lockup foretold from a cycles sample).  Exact output
# with stacks, JSON, CSV, -v checks, -C, the cancel, cpu-clock samples (no PMU: one line on
# stderr), no samples (soft only), a capture without the sysctls; then live on this machine:
# a healthy kernel for 10 s prints no WILL line.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture watchdog

# t396.1 the hrtimers collected, the soft lockup with the CPU's events until migration/1 runs,
# the hard lockup with the sample's kernel stack
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog -g
cat >expect <<'EOT'
2026-01-01 00:00:00.100000           <idle>      0 d.h1 [000] 3000.100000: timer:hrtimer_expire_entry: hrtimer=0xffff888627c209e0 function=watchdog_timer_fn now=3000100000000
2026-01-01 00:00:00.200000           <idle>      0 d.h1 [001] 3000.200000: timer:hrtimer_expire_entry: hrtimer=0xffff888627d209e0 function=watchdog_timer_fn now=3000200000000
2026-01-01 00:00:00.200000  == collect all 2 watchdog hrtimer
2026-01-01 00:00:12.200000 WILL: soft lockup - CPU#1 [2805 - 2797 > 4]
2026-01-01 00:00:12.200000              hog   4000 d.h1 [001] 3012.200000: timer:hrtimer_expire_entry: hrtimer=0xffff888627d209e0 function=watchdog_timer_fn now=3012200000000
2026-01-01 00:00:12.200005              hog   4000 d.h1 [001] 3012.200005: timer:hrtimer_start: hrtimer=0xffff888627d209e0 function=watchdog_timer_fn expires=3016200005000 softexpires=3016200005000 mode=0x0 was_armed=0
2026-01-01 00:00:12.600000              hog   4000 [001] 3012.600000: watchdog: cpu-cycles
    ffffffff81200040 hog_work+0x40 ([kernel.kallsyms])
    ffffffff81300020 do_syscall_64+0x20 ([kernel.kallsyms])
2026-01-01 00:00:13.600000              hog   4000 [001] 3013.600000: watchdog: cpu-cycles
    ffffffff81200040 hog_work+0x40 ([kernel.kallsyms])
    ffffffff81300020 do_syscall_64+0x20 ([kernel.kallsyms])
2026-01-01 00:00:14.000000              hog   4000 .... [001] 3014.000000: sched:sched_switch: prev_comm=hog prev_pid=4000 prev_prio=120 prev_state=R+ ==> next_comm=migration/1 next_pid=23 next_prio=0
2026-01-01 00:00:20.600000 WILL: hard lockup - CPU#1 [3020600000000 - 3016200005000 > 4200000000]
2026-01-01 00:00:20.600000              hog   4000 [001] 3020.600000: watchdog: cpu-cycles
    ffffffff81100010 native_queued_spin_lock_slowpath+0x10 ([kernel.kallsyms])
    ffffffff81100820 _raw_spin_lock+0x20 ([kernel.kallsyms])
    ffffffff81200080 hog_work+0x80 ([kernel.kallsyms])
    ffffffff81300020 do_syscall_64+0x20 ([kernel.kallsyms])
EOT
check_output expect actual
[ -s stderr.out ] && { cat stderr.out; fail "t396.1: stderr is not empty"; }

# t396.2 JSON: the same, one object a line; CSV: the WILL lines
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog --format json -g
cat >expect <<'EOT'
{"time":3000.100000,"cpu":0,"pid":0,"tid":0,"comm":"<idle>","event":"timer:hrtimer_expire_entry"}
{"time":3000.200000,"cpu":1,"pid":0,"tid":0,"comm":"<idle>","event":"timer:hrtimer_expire_entry"}
{"time":3012.200000,"cpu":1,"will":"soft lockup","now":2805,"touch":2797,"thresh":4}
{"time":3012.200000,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"timer:hrtimer_expire_entry"}
{"time":3012.200005,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"timer:hrtimer_start"}
{"time":3012.600000,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"cpu-cycles","stack":"hog;do_syscall_64;hog_work"}
{"time":3013.600000,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"cpu-cycles","stack":"hog;do_syscall_64;hog_work"}
{"time":3014.000000,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"sched:sched_switch"}
{"time":3020.600000,"cpu":1,"will":"hard lockup","now":3020600000000,"touch":3016200005000,"thresh":4200000000}
{"time":3020.600000,"cpu":1,"pid":4000,"tid":4000,"comm":"hog","event":"cpu-cycles","stack":"hog;do_syscall_64;hog_work;_raw_spin_lock;native_queued_spin_lock_slowpath"}
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog --format csv
cat >expect <<'EOT'
time,cpu,will,now,touch,thresh
3012.200000,1,soft lockup,2805,2797,4
3020.600000,1,hard lockup,3020600000000,3016200005000,4200000000
EOT
check_output expect actual

# t396.3 -v: every check, soft ones at each hrtimer run after the first stopper run, hard ones
# at each sample while the watchdog runs (CPU 0's stop after its cancel at 3020.3)
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog -v
assert_eq "t396.3 DEBUG lines" 55 "$(grep -c ' DEBUG: ' actual)"
grep 'DEBUG: soft' actual >soft
cat >expect <<'EOT'
2026-01-01 00:00:04.100000 DEBUG: soft lockup - CPU#0 [2797 - 2794 <= 4]
2026-01-01 00:00:04.200000 DEBUG: soft lockup - CPU#1 [2797 - 2794 <= 4]
2026-01-01 00:00:08.100000 DEBUG: soft lockup - CPU#0 [2801 - 2797 <= 4]
2026-01-01 00:00:08.200000 DEBUG: soft lockup - CPU#1 [2801 - 2797 <= 4]
2026-01-01 00:00:12.100000 DEBUG: soft lockup - CPU#0 [2805 - 2801 <= 4]
2026-01-01 00:00:16.100000 DEBUG: soft lockup - CPU#0 [2808 - 2805 <= 4]
2026-01-01 00:00:16.200000 DEBUG: soft lockup - CPU#1 [2809 - 2807 <= 4]
2026-01-01 00:00:20.100000 DEBUG: soft lockup - CPU#0 [2812 - 2808 <= 4]
2026-01-01 00:00:21.300000 DEBUG: soft lockup - CPU#1 [2813 - 2809 <= 4]
2026-01-01 00:00:25.300000 DEBUG: soft lockup - CPU#1 [2817 - 2813 <= 4]
EOT
check_output expect soft
grep -q 'DEBUG: hard lockup - CPU#0 \[3019500000000 - 3016100005000 <= 4200000000\]' actual ||
	fail "t396.3: CPU 0's last hard check"
grep -q 'DEBUG: hard lockup - CPU#0 \[302[0-9]5' actual && fail "t396.3: CPU 0 checked after its cancel"

# t396.4 -C 0: one CPU watched, healthy
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog -C 0
cat >expect <<'EOT'
2026-01-01 00:00:00.100000           <idle>      0 d.h1 [000] 3000.100000: timer:hrtimer_expire_entry: hrtimer=0xffff888627c209e0 function=watchdog_timer_fn now=3000100000000
2026-01-01 00:00:00.100000  == collect all 1 watchdog hrtimer
EOT
check_output expect actual

# t396.5 without CPU 0's cancel, its samples after 3024.3 would foretell a hard lockup
grep -v '^sample 3020.300000 0 0 0 3 ' "$FIX/watchdog.desc" | sed "s|formats/|$FIX/formats/|" >nocancel.desc
"$CAPBUILD" nocancel.desc nocancel.ppcap || fail "capbuild nocancel.desc"
run_ok actual "$PP_ANALYZE" nocancel.ppcap watchdog
grep 'WILL' actual >will
cat >expect <<'EOT'
2026-01-01 00:00:12.200000 WILL: soft lockup - CPU#1 [2805 - 2797 > 4]
2026-01-01 00:00:20.600000 WILL: hard lockup - CPU#1 [3020600000000 - 3016200005000 > 4200000000]
2026-01-01 00:00:24.500000 WILL: hard lockup - CPU#0 [3024500000000 - 3020100005000 > 4200000000]
2026-01-01 00:00:25.500000 WILL: hard lockup - CPU#0 [3025500000000 - 3020100005000 > 4200000000]
EOT
check_output expect will

# t396.6 cpu-clock samples (a machine without a PMU): the same lines; with -v, said once on stderr
sed -e "s|formats/|$FIX/formats/|" \
	-e 's|^event 5 cycles - kind=3 .*|event 5 cpu-clock - kind=2 flags=stack selector=cpu-clock//stack/|' \
	"$FIX/watchdog.desc" >clock.desc
"$CAPBUILD" clock.desc clock.ppcap || fail "capbuild clock.desc"
run_ok actual "$PP_ANALYZE" clock.ppcap watchdog
grep -c WILL actual | grep -qx 2 || fail "t396.6: two WILL lines expected"
grep -q '\[001\] 3020.600000: watchdog: cpu-clock$' actual || fail "t396.6: the sample line"
[ -s stderr.out ] && { cat stderr.out; fail "t396.6: stderr without -v (perf-prof says nothing)"; }
run_ok actual "$PP_ANALYZE" clock.ppcap watchdog -v
cat >expect <<'EOT'
pp-analyze: watchdog: the capture samples cpu-clock, not NMI cycles (no hardware PMU): a hard lockup shows only once interrupts are back on; soft lockups are foretold as with cycles
EOT
grep 'not NMI cycles' stderr.out >note.out
check_output expect note.out

# t396.7 no samples (recorded without -F): soft lockups only
grep -v -e '^event 5 ' -e '^sample .* 5 period=' clock.desc >soft.desc
"$CAPBUILD" soft.desc soft.ppcap || fail "capbuild soft.desc"
run_ok actual "$PP_ANALYZE" soft.ppcap watchdog
assert_eq "t396.7 WILL lines" "2026-01-01 00:00:12.200000 WILL: soft lockup - CPU#1 [2805 - 2797 > 4]" \
	"$(grep WILL actual)"
[ -s stderr.out ] && { cat stderr.out; fail "t396.7: stderr is not empty"; }

# t396.8 a capture without the watchdog's sysctls (an older pp-record): one line; a range
# without a watchdog run: one warning; -e refused
grep -v '^kv sysctl' clock.desc >nosysctl.desc
"$CAPBUILD" nosysctl.desc nosysctl.ppcap || fail "capbuild nosysctl.desc"
"$PP_ANALYZE" nosysctl.ppcap watchdog >out 2>err && fail "t396.8: analysed without the thresholds"
cat >expect <<'EOT'
pp-analyze: error: watchdog: the capture has no kernel.watchdog_thresh (sysctl.kernel.watchdog_thresh): record it with pp-record --for watchdog
EOT
check_output expect err

# a range without a run of the watchdog hrtimer says so (a live run stopped too soon)
run_ok actual "$PP_ANALYZE" watchdog.ppcap watchdog --time 3001,3003
[ -s actual ] && { cat actual; fail "t396.8: output without a watchdog run"; }
cat >expect <<'EOT'
pp-analyze: warning: watchdog: no run of the watchdog hrtimer (watchdog_timer_fn) in the capture: it runs every 4.0 s and the capture spans 2.0 s (or it has no kernel symbols to name it)
EOT
check_output expect stderr.out
# its events are its own
"$PP_ANALYZE" watchdog.ppcap watchdog -e timer:hrtimer_start >out 2>err && fail "t396.8: -e taken"
grep -q 'error: watchdog: does not take -e' err || { cat err; fail "t396.8: -e refused"; }

# t396.9 the plan refuses tasks: the watchdog is per CPU
"$PP_RECORD" --for 'watchdog -p 1' -o x.pp --duration 1 >out 2>err && fail "t396.9: -p accepted"
cat >expect <<'EOT'
pp-record: error: --for 'watchdog -p 1': watchdog: takes no -e, -p or -t: it watches CPUs (-C)
EOT
check_output expect err

# t396.10 live: this machine's watchdog for 10 s (the hrtimer runs every 4 s): a healthy
# kernel foretells nothing; both hrtimers are collected
if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/timer/hrtimer_expire_entry ]; then
	echo "t396.10 not run: needs root and the timer tracepoints"
	exit 0
fi
if [ "$(cat /proc/sys/kernel/watchdog 2>/dev/null)" != 1 ]; then
	echo "t396.10 not run: the kernel's lockup detector is off or absent (kernel.watchdog)"
	exit 0
fi
timeout -s INT 10 "$PP" watchdog -F 10 -g >live.out 2>live.err
grep 'WILL' live.out && fail "t396.10: a healthy machine foretold a lockup"
grep -q ' == collect all [0-9]* watchdog hrtimer$' live.out ||
	{ cat live.out live.err; fail "t396.10: the watchdog hrtimers were not collected"; }
# PMU or not, a healthy run says nothing on stderr (without one, -v says why cpu-clock)
[ -s live.err ] && { cat live.err; fail "t396.10: stderr is not empty"; }
exit 0
