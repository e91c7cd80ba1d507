/* SPDX-License-Identifier: MIT */
/*
 * percpu-stat-plan.c - what percpu-stat records: perf-prof's hand-picked
 * software events and tracepoints counted per CPU, read every -i (1 s).
 */
#include <stdio.h>
#include <string.h>

#include "analyzers/percpu-stat.h"
#include "common/err.h"
#include "common/plan.h"

static const struct pp_option percpu_stat_options[] = {
	PP_OPT_BOOL(0, "syscalls", PP_AZOPT(struct percpu_stat_opts, syscalls),
		    "count system calls too (raw_syscalls:sys_enter)"),
	PP_OPT_END(),
};

static int percpu_stat_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			    size_t errsz)
{
	const struct percpu_stat_opts *o = a->opts;
	const struct pp_common_opts *c = a->common;

	if (c->events.nr) {
		snprintf(err, errsz, "percpu-stat: does not take -e: it counts its own events");
		return PP_EUSAGE;
	}
	if (c->pids || c->tids) {
		snprintf(err, errsz, "percpu-stat: counts per CPU: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	for (size_t i = 0; i < sizeof(percpu_stat_cols) / sizeof(percpu_stat_cols[0]); i++) {
		const struct percpu_stat_col *col = &percpu_stat_cols[i];

		if (col->syscalls && !o->syscalls)
			continue;
		char sel[128];

		/* '?': a tracepoint this kernel lacks is left out, as perf-prof does */
		snprintf(sel, sizeof(sel), "%s%s", strchr(col->event, ':') ? "?" : "", col->event);
		pp_plan_add_counter(p, sel);
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_percpu_stat_plan = {
	.options = percpu_stat_options,
	.opts_size = sizeof(struct percpu_stat_opts),
	.plan = percpu_stat_plan,
};
