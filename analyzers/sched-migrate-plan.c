/* SPDX-License-Identifier: MIT */
/*
 * sched-migrate-plan.c - what sched-migrate records: sched_migrate_task on
 * every CPU (--filter as its kernel filter), with kernel stacks for -g.  The
 * cache topology it needs is in every capture (pp-record's host snapshot).
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int sched_migrate_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			      size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	p->all_cpus = true;	/* migrations of every task, even around a COMMAND */
	p->all_cpus_why = "migrations the other tasks make of the followed ones";
	if (c->events.nr) {
		snprintf(err, errsz,
			 "sched-migrate: does not take -e: it records sched_migrate_task");
		return PP_EUSAGE;
	}
	if (c->filter)
		pp_plan_add_eventf(p, "sched:sched_migrate_task/%s/", c->filter);
	else
		pp_plan_add_event(p, "sched:sched_migrate_task");
	p->user_callchain = false;	/* perf-prof keeps the kernel part only */
	return 0;
}

const struct pp_plan_ops azp_sched_migrate_plan = {
	.plan = sched_migrate_plan,
};
