/* SPDX-License-Identifier: MIT */
/*
 * stat.c - low-resolution periodic counts (perf-prof's stat), hrcount's pair.
 *
 * The -e events are counted per CPU, or per thread with -p/-t or a command;
 * pp-record reads each counter every --period, one after the other (a little
 * less exact than hrcount's group read, but it follows tasks).  The report
 * is hrcount's: per -i, the count of each period per event (per CPU or
 * thread with --perins).
 */
#include "analyze/analyzer.h"
#include "analyze/count/count.h"

const struct pp_analyzer_ops az_stat_ops = {
	.summary = "periodic counts of events per CPU or thread (counters read every --period)",
	.usage = "pp-analyze FILE stat -e EVENT[,...] [--period T] [-i MS] [--perins] [-C CPUS | -p PID]",
	.examples = "  pp stat -e sched:sched_switch -C 0 -i 1000 --period 100ms\n"
		    "  pp stat -e 'sched:sched_switch,sched:sched_wakeup//alias=wakeup/' -i 1000 --perins\n"
		    "  pp stat -e raw_syscalls:sys_enter -p 1234 -i 1000 --period 200ms --perins\n"
		    "  pp-record --for 'stat -e page-faults,context-switches --period 100ms' -a --duration 10\n",
	ANA_CNT_HIST_OPS,
};
