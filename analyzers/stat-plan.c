/* SPDX-License-Identifier: MIT */
/*
 * stat-plan.c - what stat records: its -e events counted per CPU (or per
 * thread with -p/-t), each fd read by pp-record every --period (default -i).
 */
#include "common/plan.h"

static int stat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_count_events(p, "stat", a->common, false, err, errsz);
}

const struct pp_plan_ops azp_stat_plan = {
	.options = pp_count_options,
	.opts_size = sizeof(struct pp_count_opts),
	.plan = stat_plan,
};
