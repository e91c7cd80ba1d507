/* SPDX-License-Identifier: MIT */
/*
 * kmemprof-plan.c - what kmemprof records: the -e events as given, with
 * call stacks on every event (bytes are attributed to stacks).
 */
#include "common/plan.h"

static int kmemprof_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	for (size_t i = 0; i < a->common->events.nr; i++)
		pp_plan_add_event(p, a->common->events.v[i]);
	p->callchain = true;
	return 0;
}

const struct pp_plan_ops azp_kmemprof_plan = {
	.plan = kmemprof_plan,
};
