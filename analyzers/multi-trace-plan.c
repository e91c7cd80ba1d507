/* SPDX-License-Identifier: MIT */
/*
 * multi-trace-plan.c - multi-trace's options; it records the -e events as
 * given (their stack attributes or -g included).
 *
 * Keys, roles and the other analysis attributes are ignored by pp-record,
 * so the same -e arguments serve `pp-record --for` and pp-analyze.
 */
#include "analyzers/multi-trace.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct multi_trace_opts, f)

static const struct pp_option multi_trace_options[] = {
	PP_OPT_GROUP("multi-trace options:"),
	PP_OPT_STRING(0, "impl", O(impl), "impl",
		      "two-event implementation: delay (default), pair, kmemprof, syscalls"),
	{ .type = PP_OPT_T_BOOL, .long_name = "cycle", .value = O(cycle), .flags = PP_OPT_NONEG,
	  .help = "pair the last -e with the first too (one -e is then enough)" },
	PP_OPT_END(),
};

const struct pp_plan_ops azp_multi_trace_plan = {
	.options = multi_trace_options,
	.opts_size = sizeof(struct multi_trace_opts),
};
