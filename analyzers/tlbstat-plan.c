/* SPDX-License-Identifier: MIT */
/*
 * tlbstat-plan.c - what tlbstat records: the data TLB's loads, load misses,
 * stores and store misses (perf's hardware-cache events dTLB-*) counted on
 * each CPU, read by pp-record every -i (default 1 s).  CPUs only.  The
 * load misses come first: perf-prof leads its group with them (RUN%).
 */
#include "common/plan.h"

static const char *const tlbstat_counters[] = { "dTLB-load-misses", "dTLB-loads",
						 "dTLB-store-misses", "dTLB-stores", NULL };

static int tlbstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	return pp_plan_cpu_counters(p, "tlbstat", "the dTLB loads and stores", tlbstat_counters,
				    a->common, err, errsz);
}

const struct pp_plan_ops azp_tlbstat_plan = {
	.plan = tlbstat_plan,
};
