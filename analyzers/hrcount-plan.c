/* SPDX-License-Identifier: MIT */
/*
 * hrcount-plan.c - what hrcount records: its -e events counted, read every
 * --period (default -i) by a cpu-clock sample per CPU (PERF_SAMPLE_READ of
 * the group: the kernel reads them all in one instant).
 */
#include "analyzers/hrcount.h"
#include "common/plan.h"

static const struct pp_option hrcount_options[] = {
	PP_OPT_BOOL(0, "packed", PP_AZOPT(struct hrcount_opts, packed),
		    "perf-prof's packed layout (a terminal gets it when a round has <= 5 slots)"),
	PP_OPT_END(),
};

static int hrcount_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_count_events(p, "hrcount", a->common, true, err, errsz);
}

const struct pp_plan_ops azp_hrcount_plan = {
	.options = hrcount_options,
	.opts_size = sizeof(struct hrcount_opts),
	.plan = hrcount_plan,
};
