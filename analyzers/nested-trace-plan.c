/* SPDX-License-Identifier: MIT */
/*
 * nested-trace-plan.c - nested-trace's options; it records the -e events as given.
 */
#include "analyzers/nested-trace.h"
#include "common/plan.h"

static const struct pp_option nested_trace_options[] = {
	PP_OPT_GROUP("nested-trace options:"),
	PP_OPT_STRING(0, "impl", PP_AZOPT(struct nested_trace_opts, impl), "impl",
		      "delay (function times), call (call tree) or call-delay (both, the default)"),
	PP_OPT_END(),
};

const struct pp_plan_ops azp_nested_trace_plan = {
	.options = nested_trace_options,
	.opts_size = sizeof(struct nested_trace_opts),
};
