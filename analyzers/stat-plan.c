/* SPDX-License-Identifier: MIT */
/*
 * stat-plan.c - what stat records: its -e events counted per CPU (or per
 * thread with -p/-t), each fd read by pp-record every --period (default -i).
 */
#include "analyzers/stat.h"
#include "common/plan.h"

static const struct pp_option stat_options[] = {
	PP_OPT_BOOL(0, "packed", PP_AZOPT(struct stat_opts, packed),
		    "perf-prof's packed layout (a terminal gets it when a round has <= 5 slots)"),
	PP_OPT_END(),
};

static int stat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_count_events(p, "stat", a->common, false, err, errsz);
}

const struct pp_plan_ops azp_stat_plan = {
	.options = stat_options,
	.opts_size = sizeof(struct stat_opts),
	.plan = stat_plan,
};
