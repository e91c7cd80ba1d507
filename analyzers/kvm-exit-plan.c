/* SPDX-License-Identifier: MIT */
/*
 * kvm-exit-plan.c - what kvm-exit records: kvm:kvm_exit (with --filter as
 * its kernel filter) and kvm:kvm_entry.
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int kvm_exit_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->events.nr) {
		snprintf(err, errsz,
			 "kvm-exit: does not take -e: it records kvm:kvm_exit and kvm:kvm_entry");
		return PP_EUSAGE;
	}
	if (c->filter)
		pp_plan_add_eventf(p, "kvm:kvm_exit/%s/", c->filter);
	else
		pp_plan_add_event(p, "kvm:kvm_exit");
	pp_plan_add_event(p, "kvm:kvm_entry");
	return 0;
}

const struct pp_plan_ops azp_kvm_exit_plan = {
	.plan = kvm_exit_plan,
};
