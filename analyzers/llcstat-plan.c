/* SPDX-License-Identifier: MIT */
/*
 * llcstat-plan.c - what llcstat records: the last-level cache references and
 * misses (perf's cache-references and cache-misses, which Intel counts at the
 * LLC) on each CPU, read by pp-record every -i (default 1 s).  CPUs only.
 * perf-prof reads AMD's amd_l3 uncore PMU instead (with the miss latency);
 * pp opens the generic events there too (docs/analyzers/llcstat.md).
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int llcstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->pids || c->tids) {
		snprintf(err, errsz, "llcstat can only be bound to CPU: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	if (c->events.nr) {
		snprintf(err, errsz, "llcstat counts the LLC references and misses: it takes no -e");
		return PP_EUSAGE;
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	pp_plan_add_counter(p, "cache-references");
	pp_plan_add_counter(p, "cache-misses");
	p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_llcstat_plan = {
	.plan = llcstat_plan,
};
