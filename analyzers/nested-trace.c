/* SPDX-License-Identifier: MIT */
/*
 * nested-trace.c - nested entry/exit events: function times and the call tree.
 *
 * perf-prof's nested-trace: each -e is an "entry,exit" pair (-e f,f_ret
 * -e g,g_ret); an exit closes the latest open entry of its function with
 * the same key (the CPU, the thread with -p/-t, or -k), and an entry seen
 * while another one is open is its callee.  --impl delay prints each
 * function's latency table, call the call tree, call-delay (the default)
 * the tree with each function's latency.  The engine is the shared
 * two-event engine (analyze/latency/latency.h) in its nested mode.
 */
#include "analyze/analyzer.h"
#include "analyze/latency/latency.h"
#include "analyzers/nested-trace.h"

static int nested_trace_init(struct pp_az *az)
{
	const struct nested_trace_opts *o = az->opts;
	struct ana_te_config cfg = { .impl = ANA_TE_CALL_DELAY, .impl_name = o->impl, .nested = true };

	return ana_te_az_init(az, &cfg);
}

const struct pp_analyzer_ops az_nested_trace_ops = {
	.summary = "nested entry/exit events (-e f,f_ret): function times and call tree",
	.usage = "pp-analyze FILE nested-trace -e ENTRY,EXIT [-e ENTRY,EXIT ...] [-k EXPR] "
		 "[--impl delay|call|call-delay]\n       [--than T] [--detail] [--perins] "
		 "[--heatmap FILE] [-i MS]",
	.examples =
		"  pp-analyze pp.capture nested-trace -e irq:softirq_entry/vec==1/,irq:softirq_exit/vec==1/ -i 1000\n"
		"  pp-analyze pp.capture nested-trace -e irq:softirq_entry,irq:softirq_exit "
		"-e timer:timer_expire_entry,timer:timer_expire_exit --impl call-delay\n"
		"  pp-analyze pp.capture nested-trace -e irq:irq_handler_entry,irq:irq_handler_exit "
		"-e irq:softirq_entry,irq:softirq_exit --impl call\n",
	.flags = PP_AZ_NEED_EVENTS,
	.init = nested_trace_init,
	ANA_TE_HOOKS,
};
