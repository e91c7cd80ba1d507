#!/bin/sh
# SPDX-License-Identifier: MIT
# t353-cpu-task-state-rundelay: two spinners pinned to one CPU wait for each other:
# task-state's RD (runnable, waiting) and R (running) per thread match the kernel's own
# schedstat accounting (run_ns, delay_ns in pinpair's LOAD line) within 10 %.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

cpu=$(($(nproc) - 1))
"$PP_RECORD" --for 'task-state --filter pinpair' -a -m 1024 -o pin.pp -- \
	"$PP_LOAD/pinpair" -d 2 -c "$cpu" >rec.out 2>rec.err || { cat rec.err; fail "pp-record"; }
load=$(grep '^LOAD pinpair' rec.err) || fail "no LOAD line"
lv() { printf '%s\n' "$load" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(lv delay_ns | cut -d, -f1)" = -1 ] && skip "no schedstat in /proc (CONFIG_SCHED_INFO)"
tids=$(lv spin_tids)
"$PP_ANALYZE" pin.pp task-state --perins -t "$tids" >ts.txt || fail "task-state"
i=1
for tid in $(echo "$tids" | tr , ' '); do
	run_us=$(($(lv run_ns | cut -d, -f$i) / 1000))
	delay_us=$(($(lv delay_ns | cut -d, -f$i) / 1000))
	r=$(awk -v t="$tid" '$1 == t && $3 == "R" { print int($5) }' ts.txt)
	rd=$(awk -v t="$tid" '$1 == t && $3 == "RD" { print int($5) }' ts.txt)
	[ -n "$rd" ] || { cat ts.txt; fail "no RD row for $tid"; }
	assert_between "RD of $tid vs schedstat $delay_us us" \
		$((delay_us * 9 / 10)) $((delay_us * 11 / 10)) "$rd"
	assert_between "R of $tid vs schedstat $run_us us" \
		$((run_us * 9 / 10)) $((run_us * 11 / 10)) "$r"
	i=$((i + 1))
done
exit 0
