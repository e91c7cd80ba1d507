/* SPDX-License-Identifier: MIT */
/*
 * irq-off-plan.c - what irq-off records: cpu-clock samples every --period
 * (default: half of --than, else 10 ms) on every CPU, with kernel stacks for -g.
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int irq_off_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	/* scheduling is about the other tasks too: every CPU, even around a COMMAND */
	p->all_cpus = true;
	if (c->events.nr) {
		snprintf(err, errsz, "irq-off: does not take -e: it records cpu-clock");
		return PP_EUSAGE;
	}
	if (c->pids || c->tids) {
		snprintf(err, errsz, "irq-off: watches CPUs, not tasks: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	pp_plan_add_event(p, "cpu-clock");
	p->period = c->period_ns ? c->period_ns : c->than_ns ? c->than_ns / 2 : 10000000;
	p->freq = 0;
	p->user_callchain = false;	/* the kernel stack is the interesting part */
	return 0;
}

const struct pp_plan_ops azp_irq_off_plan = {
	.plan = irq_off_plan,
};
