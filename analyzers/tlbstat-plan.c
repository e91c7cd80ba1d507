/* SPDX-License-Identifier: MIT */
/*
 * tlbstat-plan.c - what tlbstat records: the data TLB's loads, load misses,
 * stores and store misses (perf's hardware-cache events dTLB-*) counted on
 * each CPU, read by pp-record every -i (default 1 s).  CPUs only.  The
 * load misses come first: perf-prof leads its group with them (RUN%).
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int tlbstat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->pids || c->tids) {
		snprintf(err, errsz, "tlbstat can only be bound to CPU: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	if (c->events.nr) {
		snprintf(err, errsz, "tlbstat counts the dTLB loads and stores: it takes no -e");
		return PP_EUSAGE;
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	pp_plan_add_counter(p, "dTLB-load-misses");
	pp_plan_add_counter(p, "dTLB-loads");
	pp_plan_add_counter(p, "dTLB-store-misses");
	pp_plan_add_counter(p, "dTLB-stores");
	p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_tlbstat_plan = {
	.plan = tlbstat_plan,
};
