/* SPDX-License-Identifier: MIT */
/*
 * ldlat-stores-plan.c - what ldlat-stores records: Intel's PEBS store event
 * (mem-stores: MEM_INST_RETIRED.ALL_STORES) sampled every -T stores (1000 by
 * default), each sample with its IP, data address, latency, data source and
 * physical address.  pp-record refuses it in one line where there is no PMU,
 * or on a CPU that is not Intel's.
 */
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

struct ldlat_stores_plan_opts {
	uint64_t trigger;		/* -T: one sample every N stores */
};

static const struct pp_option ldlat_stores_options[] = {
	PP_OPT_GROUP("ldlat-stores options:"),
	PP_OPT_U64('T', "trigger", PP_AZOPT(struct ldlat_stores_plan_opts, trigger), "N",
		   "one sample every N stores (default 1000)"),
	PP_OPT_END(),
};

static int ldlat_stores_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			     size_t errsz)
{
	const struct ldlat_stores_plan_opts *o = a->opts;

	if (a->common->events.nr) {
		snprintf(err, errsz, "ldlat-stores samples mem-stores: it takes no -e");
		return PP_EUSAGE;
	}
	pp_plan_add_event(p, "mem-stores");
	p->period = o->trigger ? o->trigger : 1000;
	return 0;
}

const struct pp_plan_ops azp_ldlat_stores_plan = {
	.options = ldlat_stores_options,
	.opts_size = sizeof(struct ldlat_stores_plan_opts),
	.plan = ldlat_stores_plan,
};
