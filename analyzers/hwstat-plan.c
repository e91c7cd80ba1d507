/* SPDX-License-Identifier: MIT */
/*
 * hwstat-plan.c - what hwstat records: cycles and instructions counted on each
 * CPU, read by pp-record every -i (default 1 s) with their enabled and
 * running times.  CPUs only, as perf-prof's; a machine without a hardware PMU
 * stops pp-record at the first of them, in one line.
 */
#include "common/plan.h"

static const char *const hwstat_counters[] = { "cycles", "instructions", NULL };

static int hwstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_cpu_counters(p, "hwstat", "cycles and instructions", hwstat_counters,
				    a->common, err, errsz);
}

const struct pp_plan_ops azp_hwstat_plan = {
	.plan = hwstat_plan,
};
