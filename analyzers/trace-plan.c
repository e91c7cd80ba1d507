/* SPDX-License-Identifier: MIT */
/*
 * trace-plan.c - trace's options, and what it records: the -e events as given
 * (with stacks for -g or the per-event `stack` attribute).
 */
#include "analyzers/trace.h"

static const struct pp_option trace_options[] = {
	PP_OPT_GROUP("trace options:"),
	{ .type = PP_OPT_T_BOOL, .long_name = "generic-print",
	  .value = PP_AZOPT(struct trace_opts, generic_print), .flags = PP_OPT_HIDDEN,
	  .help = "print every event with libtraceevent (tests)" },
	PP_OPT_END(),
};

const struct pp_plan_ops azp_trace_plan = {
	.options = trace_options,
	.opts_size = sizeof(struct trace_opts),
};
