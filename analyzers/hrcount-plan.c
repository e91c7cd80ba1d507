/* SPDX-License-Identifier: MIT */
/*
 * hrcount-plan.c - what hrcount records: its -e events counted, read every
 * --period (default -i) by a cpu-clock sample per CPU (PERF_SAMPLE_READ of
 * the group: the kernel reads them all in one instant).
 */
#include "common/plan.h"

static int hrcount_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_count_events(p, "hrcount", a->common, true, err, errsz);
}

const struct pp_plan_ops azp_hrcount_plan = {
	.options = pp_count_options,
	.opts_size = sizeof(struct pp_count_opts),
	.plan = hrcount_plan,
};
