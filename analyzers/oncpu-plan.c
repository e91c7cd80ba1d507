/* SPDX-License-Identifier: MIT */
/*
 * oncpu-plan.c - what oncpu records: sched_switch on the CPUs (-C), or
 * sched_stat_runtime of the threads (-p/-t), with --filter or --prio as the
 * kernel filter.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyzers/oncpu.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct oncpu_opts, f)

static const struct pp_option oncpu_options[] = {
	PP_OPT_GROUP("oncpu options:"),
	PP_OPT_STRING(0, "prio", O(prio), "LIST",
		      "only switches from or to these priorities: 1-99"),
	PP_OPT_BOOL(0, "only-comm", O(only_comm), "rows by command name instead of by thread"),
	PP_OPT_END(),
};

static int oncpu_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct oncpu_opts *o = a->opts;
	const struct pp_common_opts *c = a->common;
	const char *ev = c->pids || c->tids ? "sched:sched_stat_runtime" : "sched:sched_switch";
	char *prio = NULL;

	/* scheduling is about the other tasks too: every CPU, even around a COMMAND */
	p->all_cpus = true;
	p->all_cpus_why = "the other tasks' switches on the followed tasks' CPUs";
	if (c->events.nr) {
		snprintf(err, errsz, "oncpu: does not take -e: it records the sched events itself");
		return PP_EUSAGE;
	}
	if (o->prio && c->filter) {
		snprintf(err, errsz, "oncpu: --prio and --filter exclude each other");
		return PP_EUSAGE;
	}
	if (o->prio && !(prio = oncpu_prio_filter(o->prio))) {
		snprintf(err, errsz, "oncpu: bad --prio list '%s': expected 1-99 or 0,5,10-20",
			 o->prio);
		return PP_ESYNTAX;
	}
	if (prio && (c->pids || c->tids)) {
		snprintf(err, errsz,
			 "oncpu: --prio filters sched_switch: it does not go with -p/-t");
		free(prio);
		return PP_EUSAGE;
	}
	if (prio || c->filter)
		pp_plan_add_eventf(p, "%s/%s/", ev, prio ? prio : c->filter);
	else
		pp_plan_add_event(p, ev);
	free(prio);
	return 0;
}

const struct pp_plan_ops azp_oncpu_plan = {
	.options = oncpu_options,
	.opts_size = sizeof(struct oncpu_opts),
	.plan = oncpu_plan,
};
