#!/bin/sh
# SPDX-License-Identifier: MIT
# t331-lat-multitrace: multi-trace's pair counts and percentiles equal the pairs
# computed independently (lat-ref.py) from the trace output of the same capture,
# for perf-prof's two examples: softirq_entry -> softirq_exit (key CPU) and
# sched_wakeup -> sched_switch (key pid / next_pid).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event irq:softirq_entry
need_event sched:sched_wakeup
command -v python3 >/dev/null || skip "python3 is needed for the reference computation"

"$PP_RECORD" -a -m 512 -e irq:softirq_entry,irq:softirq_exit,sched:sched_wakeup,sched:sched_switch \
	-o mt.ppcap -- sh -c "'$PP_LOAD/ctxsw' -n 20000 & '$PP_LOAD/sleeper' -n 200 -s 5ms; wait" \
	>rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record exited $?"; }
run_ok trace.out "$PP_ANALYZE" mt.ppcap trace
run_ok dump.out "$PP_ANALYZE" mt.ppcap dump

# compare MODE MULTI-TRACE-ARGS...: pairs equal, percentiles within 1% (+1 ns of rounding)
compare() {
	mode=$1
	shift
	python3 "$TOP/tests/integration/lat-ref.py" $mode trace.out dump.out >ref.out ||
		fail "lat-ref.py $mode"
	run_ok mt.out "$PP_ANALYZE" mt.ppcap multi-trace "$@"
	set -- $(cat ref.out)
	ref_n=$2 ref_p50=$4 ref_p95=$6 ref_p99=$8
	[ "$ref_n" -ge 100 ] || skip "only $ref_n $mode pairs in the capture"
	set -- $(awk '$2 == "=>" && $1 != "start" { print $4, $7, $8, $9 }' mt.out)
	[ $# = 4 ] || { cat mt.out; fail "$mode: expected one table row"; }
	assert_eq "$mode pairs" "$ref_n" "$1"
	for p in "50 $ref_p50 $2" "95 $ref_p95 $3" "99 $ref_p99 $4"; do
		set -- $p
		awk -v r="$2" -v x="$3" 'BEGIN { d = x - r; if (d < 0) d = -d; exit !(d <= r * 0.01 + 0.002) }' ||
			fail "$mode p$1: multi-trace $3 us, exact $2 us"
	done
}

# t331.1 softirq latency per CPU
compare softirq -e irq:softirq_entry -e irq:softirq_exit
# t331.2 wakeup to running, keys from -k and key=
compare wakeup -e sched:sched_wakeup -e 'sched:sched_switch//key=next_pid/' -k pid

# t331.3 --impl pair agrees on the softirq pairs
python3 "$TOP/tests/integration/lat-ref.py" softirq trace.out dump.out >ref.out
run_ok pair.out "$PP_ANALYZE" mt.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair
assert_eq "pair count" "$(awk '{print $2}' ref.out)" "$(awk '/ paired / { print $NF }' pair.out)"

# t331.4 --perins rows add up to the total
run_ok per.out "$PP_ANALYZE" mt.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --perins
assert_eq "per-CPU rows sum" "$(awk '{print $2}' ref.out)" \
	"$(awk '$3 == "=>" { n += $5 } END { print n }' per.out)"
exit 0
