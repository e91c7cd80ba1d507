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
#include "analyzers/stat.h"

static int stat_init(struct pp_az *az)
{
	const struct stat_opts *o = az->opts;

	return ana_cnt_hist_init(az, o->packed);
}

const struct pp_analyzer_ops az_stat_ops = {
	.summary = "periodic counts of events per CPU or thread (counters read every --period)",
	.usage = "pp-analyze FILE stat -e EVENT[,...] [--period T] [-i MS] [--perins] [-C CPUS | -p PID]",
	.examples = "  pp stat -e sched:sched_switch -C 0 -i 1000 --period 100ms\n"
		    "  pp stat -e 'sched:sched_switch,sched:sched_wakeup//alias=wakeup/' -i 1000 --perins\n"
		    "  pp stat -e raw_syscalls:sys_enter -p 1234 -i 1000 --period 200ms --perins\n"
		    "  pp-record --for 'stat -e page-faults,context-switches --period 100ms' -a --duration 10\n",
	.help_attrs = "alias=./",
	.priv_size = sizeof(void *),
	.flags = PP_AZ_NEED_EVENTS | PP_AZ_COUNTERS,
	.init = stat_init,
	.event = ana_cnt_hist_event,
	.finish = ana_cnt_hist_finish,
	.release = ana_cnt_hist_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = ana_cnt_az_state_write,
	.state_read = ana_cnt_az_state_read,
	.state_join = ana_cnt_az_state_join,
};
