/* SPDX-License-Identifier: MIT */
/*
 * multi-trace.c - latencies and pairings between events of successive -e positions.
 *
 * perf-prof's multi-trace over the shared two-event engine
 * (analyze/latency/latency.h): each -e is a position, events are related by key,
 * and each (event1, event2) pair feeds the --impl chosen (delay by
 * default: the latency table; pair, kmemprof, syscalls).  This file only
 * binds the options to the engine.
 */
#include "analyze/analyzer.h"
#include "analyze/latency/latency.h"
#include "analyzers/multi-trace.h"

static int multi_trace_init(struct pp_az *az)
{
	const struct multi_trace_opts *o = az->opts;
	struct ana_te_config cfg = { .impl = ANA_TE_DELAY, .impl_name = o->impl, .cycle = o->cycle };

	return ana_te_az_init(az, &cfg);
}

const struct pp_analyzer_ops az_multi_trace_ops = {
	.summary = "latency between related events of successive -e positions (delay, pair ...)",
	.usage = "pp-analyze FILE multi-trace -e EVENT[,EVENT...] -e EVENT... [-k EXPR] [--impl IMPL]\n"
		 "       [--than|--only-than|--lower T] [--detail[=-N,+N,1,2,hide<N,samecpu,samepid,"
		 "sametid,samekey]]\n       [--perins] [--heatmap FILE] [--cycle] [-i MS]",
	.examples =
		"  pp-analyze pp.capture multi-trace -e irq:softirq_entry/vec==1/ -e irq:softirq_exit/vec==1/ -i 1000\n"
		"  pp-analyze pp.capture multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair\n"
		"  pp-analyze pp.capture multi-trace -e irq:softirq_entry -e irq:softirq_exit --than 100us --detail=-1ms\n"
		"  pp-analyze pp.capture multi-trace -e 'sched:sched_wakeup,sched:sched_wakeup_new,"
		"sched:sched_switch/prev_state==0&&prev_pid>0/key=prev_pid/' \\\n"
		"      -e 'sched:sched_switch//key=next_pid/' -k pid --than 20ms --detail=samecpu\n"
		"  pp-analyze pp.capture multi-trace -e 'sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/' --cycle\n"
		"  pp-analyze pp.capture multi-trace -e 'kmem:kmalloc//key=ptr/' -e 'kmem:kfree//key=ptr/' --impl pair\n",
	.flags = PP_AZ_NEED_EVENTS,
	.init = multi_trace_init,
	ANA_TE_HOOKS,
};
