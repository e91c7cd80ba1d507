/* SPDX-License-Identifier: MIT */
/*
 * misc-plan.c - what misc records: the side-band records ksymbol, bpf_event,
 * cgroup and text_poke, on a dummy software event (no samples), as perf-prof.
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int misc_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	if (a->common->events.nr) {
		snprintf(err, errsz, "misc: does not take -e: it records side-band records only");
		return PP_EUSAGE;
	}
	p->sideband = true;
	p->all_cpus = true;	/* BPF programs and cgroups come from anywhere */
	pp_plan_add_event(p, "dummy");
	return 0;
}

const struct pp_plan_ops azp_misc_plan = {
	.plan = misc_plan,
};
