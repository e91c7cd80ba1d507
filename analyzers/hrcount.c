/* SPDX-License-Identifier: MIT */
/*
 * hrcount.c - high-resolution periodic counts (perf-prof's hrcount).
 *
 * The -e events are counted, not sampled; a cpu-clock sample on each CPU
 * every --period reads the whole group at once, so each period's count is
 * exact and all CPUs are read in the same instant.  Every -i the counts of
 * the round's periods are printed per event (per CPU with --perins), in
 * perf-prof's layouts (analyze/count/hist-print.c).  A capture that holds
 * the events themselves instead of counter readings is binned by time: the
 * same report from any recorded tracepoint stream.
 */
#include "analyze/analyzer.h"
#include "analyze/count/count.h"

const struct pp_analyzer_ops az_hrcount_ops = {
	.summary = "high-resolution periodic counts of events per --period slot (counted by a cpu-clock leader)",
	.usage = "pp-analyze FILE hrcount -e EVENT[,...] [--period T] [-i MS] [--perins] [-C CPUS]",
	.examples = "  pp hrcount -e sched:sched_switch -C 0 --period 50ms -i 1000\n"
		    "  pp hrcount -e 'sched:sched_switch,sched:sched_wakeup//alias=wakeup/' --period 50ms --perins\n"
		    "  pp-record --for 'hrcount -e sched:sched_switch --period 10ms' -a --duration 10\n"
		    "  pp-analyze pp.capture hrcount -e sched:sched_switch -i 500 --period 20ms\n"
		    "  pp-analyze pp.capture hrcount -e sched:sched_switch --period 1ms   # a recorded event stream, binned\n",
	ANA_CNT_HIST_OPS,
};
