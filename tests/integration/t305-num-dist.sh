#!/bin/sh
# SPDX-License-Identifier: MIT
# t305-num-dist: num-dist on fixed captures (exact statistics, --perins, --than,
# --heatmap, json, errors) and on a recorded load (calls per thread = ground truth)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
build_fixture print-mix
S=sched-basic.ppcap

# t305.1 golden tables
golden nd-basic "$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/,sched:sched_wakeup//num=prio/alias=prio/' ||
	fail "num-dist"
golden nd-perins-than "$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/' --perins --than 150 ||
	fail "num-dist --perins --than"
golden nd-json "$PP_ANALYZE" print-mix.ppcap num-dist -e 'raw_syscalls:sys_exit//num=ret/' --format json ||
	fail "num-dist json"
golden nd-interval "$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=next_prio/' -i 2 || fail "num-dist -i"
"$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/' --heatmap hm >/dev/null || fail "--heatmap"
printf '1000000150000 0\n1000000200000 200\n1000003000000 201\n1000005000000 100\n' >expect
check_output expect hm-sched_switch.lat

# t305.2 errors
"$PP_ANALYZE" $S num-dist -e sched:sched_switch 2>err.out && fail "num-dist without num="
grep -q "needs num=EXPR" err.out || { cat err.out; fail "num= error"; }
"$PP_ANALYZE" $S num-dist -e 'sched:sched_switch//num=prev_pid/key=prev_pid/' 2>err.out && fail "key= accepted"
grep -q "use multi-trace" err.out || { cat err.out; fail "key= error"; }

# t305.3 a recorded load: each of 2 threads made 3000 getppid() calls (num = the syscall nr)
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/raw_syscalls/sys_enter ]; then
	"$PP_RECORD" -e 'raw_syscalls:sys_enter/id==110/' -m 1024 -o gt.ppcap -- \
		"$PP_LOAD/syscalls" -t 2 -n 3000 -m getppid >rec.out 2>&1 || { cat rec.out; fail "pp-record"; }
	load=$(grep '^LOAD syscalls' rec.out) || fail "no LOAD line"
	pid=$(load_field "$load" pid)
	if "$PP_ANALYZE" gt.ppcap event-care >/dev/null; then
		run_ok live.out "$PP_ANALYZE" gt.ppcap num-dist -e 'raw_syscalls:sys_enter//num=id/' --perins -p "$pid"
		rows=$(awk '$2 == "sys_enter" && $3 == 3000 && $4 == 330000 && $5 == 110 && $NF == 110' live.out | wc -l)
		assert_eq "threads with 3000 calls of nr 110" 2 "$rows"
	fi
fi
exit 0
