/* SPDX-License-Identifier: MIT */
/*
 * trace-plan.c - trace's options, and what it records: the -e events as given
 * (with stacks for -g or the per-event `stack` attribute).  perf-prof's
 * --ptrace is what pp-record does anyway (said with -v); --overwrite is the
 * analysis's (trace.c): pp-record records everything.
 */
#include "analyzers/trace.h"
#include "common/log.h"

#define O(f) PP_AZOPT(struct trace_opts, f)

static const struct pp_option trace_options[] = {
	PP_OPT_GROUP("trace options:"),
	{ .type = PP_OPT_T_BOOL, .long_name = "generic-print", .value = O(generic_print),
	  .flags = PP_OPT_HIDDEN, .help = "print every event with libtraceevent (tests)" },
	/* perf-prof's, hidden: it changes nothing here (docs/analyzers.md "perf-prof options") */
	{ .type = PP_OPT_T_BOOL, .long_name = "ptrace", .value = O(ptrace),
	  .flags = PP_OPT_NONEG | PP_OPT_HIDDEN,
	  .help = "accepted: pp-record follows the new threads of -p without ptrace" },
	PP_OPT_BOOL(0, "overwrite", O(overwrite),
		    "print at the end only the newest events that fit each CPU's -m pages"),
	PP_OPT_END(),
};

static int trace_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct trace_opts *o = a->opts;

	(void)err;
	(void)errsz;
	if (a->common->verbose && o->ptrace)
		pp_note("trace: --ptrace: pp-record follows the new threads of -p without ptrace");
	for (size_t i = 0; i < a->common->events.nr; i++)
		pp_plan_add_event(p, a->common->events.v[i]);
	return 0;
}

const struct pp_plan_ops azp_trace_plan = {
	.options = trace_options,
	.opts_size = sizeof(struct trace_opts),
	.plan = trace_plan,
};
