/* SPDX-License-Identifier: MIT */
/*
 * hwstat-plan.c - what hwstat records: cycles and instructions counted on each
 * CPU, read by pp-record every -i (default 1 s) with their enabled and
 * running times.  CPUs only, as perf-prof's; a machine without a hardware PMU
 * stops pp-record at the first of them, in one line.
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int hwstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->pids || c->tids) {
		snprintf(err, errsz, "hwstat can only be bound to CPU: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	if (c->events.nr) {
		snprintf(err, errsz, "hwstat counts cycles and instructions: it takes no -e");
		return PP_EUSAGE;
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	pp_plan_add_counter(p, "cycles");
	pp_plan_add_counter(p, "instructions");
	p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_hwstat_plan = {
	.plan = hwstat_plan,
};
