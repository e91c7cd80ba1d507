/* SPDX-License-Identifier: MIT */
/*
 * ldlat-loads-plan.c - what ldlat-loads records: Intel's PEBS load-latency
 * event (mem-loads: MEM_TRANS_RETIRED.LOAD_LATENCY) sampled every -T loads
 * (1000 by default) over the latency threshold --ldlat (3 cycles by
 * default), each sample with its IP, data address, latency, data source and
 * physical address.  pp-record refuses it in one line where there is no PMU,
 * or on a CPU that is not Intel's.
 */
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

struct ldlat_loads_plan_opts {
	uint64_t ldlat;			/* cycles: loads this slow or slower are sampled */
	uint64_t trigger;		/* -T: one sample every N such loads */
};

#define O(f) PP_AZOPT(struct ldlat_loads_plan_opts, f)

static const struct pp_option ldlat_loads_options[] = {
	PP_OPT_GROUP("ldlat-loads options:"),
	PP_OPT_U64(0, "ldlat", O(ldlat), "cycles",
		   "sample the loads of at least this latency (default 3)"),
	PP_OPT_U64('T', "trigger", O(trigger), "N", "one sample every N such loads (default 1000)"),
	PP_OPT_END(),
};

static int ldlat_loads_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			    size_t errsz)
{
	const struct ldlat_loads_plan_opts *o = a->opts;
	uint64_t ldlat = o->ldlat ? o->ldlat : 3;

	if (a->common->events.nr) {
		snprintf(err, errsz, "ldlat-loads samples mem-loads: it takes no -e");
		return PP_EUSAGE;
	}
	if (ldlat > 0xffff) {
		snprintf(err, errsz, "ldlat-loads: --ldlat %llu: at most 65535 cycles",
			 (unsigned long long)ldlat);
		return PP_ERANGE;
	}
	pp_plan_add_eventf(p, "mem-loads/--ldlat %llu/", (unsigned long long)ldlat);
	p->period = o->trigger ? o->trigger : 1000;
	return 0;
}

const struct pp_plan_ops azp_ldlat_loads_plan = {
	.options = ldlat_loads_options,
	.opts_size = sizeof(struct ldlat_loads_plan_opts),
	.plan = ldlat_loads_plan,
};
