/* SPDX-License-Identifier: MIT */
/*
 * top-plan.c - top's options; it records the -e events as given.
 */
#include "analyzers/top.h"

static const struct pp_option top_options[] = {
	PP_OPT_GROUP("top options:"),
	PP_OPT_BOOL(0, "only-comm", PP_AZOPT(struct top_opts, only_comm),
		    "one row per name (comm): the key column is hidden"),
	PP_OPT_END(),
};

const struct pp_plan_ops azp_top_plan = {
	.options = top_options,
	.opts_size = sizeof(struct top_opts),
};
