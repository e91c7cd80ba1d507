/* SPDX-License-Identifier: MIT */
/*
 * syscalls-plan.c - what syscalls records: raw_syscalls:sys_enter and
 * sys_exit (or the -e given), plus sched:sched_process_free, whose pid lets
 * the analyzer close the exit/exit_group calls that never return.
 */
#include "common/plan.h"

static int syscalls_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_strlist *ev = &a->common->events;

	if (ev->nr) {
		for (size_t i = 0; i < ev->nr; i++)
			pp_plan_add_event(p, ev->v[i]);
	} else {
		pp_plan_add_event(p, "raw_syscalls:sys_enter");
		pp_plan_add_event(p, "raw_syscalls:sys_exit");
	}
	pp_plan_add_event(p, "sched:sched_process_free");
	return 0;
}

const struct pp_plan_ops azp_syscalls_plan = {
	.plan = syscalls_plan,
};
