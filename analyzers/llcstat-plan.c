/* SPDX-License-Identifier: MIT */
/*
 * llcstat-plan.c - what llcstat records: the last-level cache references and
 * misses (perf's cache-references and cache-misses, which Intel counts at the
 * LLC) on each CPU, read by pp-record every -i (default 1 s).  CPUs only.
 * perf-prof reads AMD's amd_l3 uncore PMU instead (with the miss latency);
 * pp opens the generic events there too (docs/analyzers/llcstat.md).
 */
#include "common/plan.h"

static const char *const llcstat_counters[] = { "cache-references", "cache-misses", NULL };

static int llcstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_cpu_counters(p, "llcstat", "the LLC references and misses",
				    llcstat_counters, a->common, err, errsz);
}

const struct pp_plan_ops azp_llcstat_plan = {
	.plan = llcstat_plan,
};
