/* SPDX-License-Identifier: MIT */
/*
 * hrtimer-plan.c - what hrtimer records: its -e events counted, and a
 * cpu-clock leader per CPU firing every --period (or 1/-F s) that reads the
 * whole group at once (PERF_SAMPLE_READ), with the kernel stack of the
 * interrupted task for -g.  The {expression} is the analyzer's: it is only
 * checked for presence here (pp-record does not evaluate it).
 */
#include <stdio.h>

#include "common/err.h"
#include "common/plan.h"

static int hrtimer_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;
	uint64_t period = c->period_ns;

	if (!c->events.nr) {
		snprintf(err, errsz,
			 "hrtimer: -e EVENTS is required: the events counted each period "
			 "(irq-off watches the timer alone)");
		return PP_EUSAGE;
	}
	if (c->pids || c->tids) {
		snprintf(err, errsz, "hrtimer can only be attached to CPUs: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	if (a->argc < 1) {
		snprintf(err, errsz, "hrtimer: {expression} needs to be specified");
		return PP_EUSAGE;
	}
	if (!period && c->freq)
		period = 1000000000ull / c->freq;
	if (!period) {
		snprintf(err, errsz, "hrtimer: give the timer's period: --period T or -F HZ");
		return PP_EUSAGE;
	}
	p->count_period = period;
	p->count_leader = true;
	for (size_t i = 0; i < c->events.nr; i++)
		pp_plan_add_counter(p, c->events.v[i]);
	/* the leader's period is count_period: no other sampling rate to set */
	p->period = 0;
	p->freq = 0;
	p->user_callchain = false;	/* perf-prof's: the kernel stack of the interrupted task */
	p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_hrtimer_plan = {
	.plan = hrtimer_plan,
};
