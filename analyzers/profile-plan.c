/* SPDX-License-Identifier: MIT */
/*
 * profile-plan.c - what profile records: cycles samples at -F Hz (997 by
 * default) on machines with a hardware PMU, cpu-clock on those without (virtual
 * machines), with call chains for -g; the -e events instead when given.
 * --prio, perf-prof's eBPF filter on the sampled task's priority, records
 * sched:sched_switch too: the analysis knows each CPU's task and its priority.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyzers/profile.h"
#include "common/err.h"
#include "common/plan.h"
#include "common/units.h"
#include "common/pmu.h"

#define O(f) PP_AZOPT(struct profile_opts, f)

static const struct pp_option profile_options[] = {
	PP_OPT_GROUP("profile options:"),
	PP_OPT_U64(0, "top", O(top), "N", "rows of the symbol table (default 40)"),
	PP_OPT_STRING(0, "sort", O(sort), "KEY[,KEY]",
		      "self or children: order of the symbol table (default self); "
		      "sym, dso or dso,sym: a row per symbol (default), binary or both"),
	PP_OPT_BOOL(0, "all", O(all), "every symbol, also those under 0.1%"),
	PP_OPT_BOOL(0, "no-inline", O(no_inline),
		    "no inline frames (by default, from DWARF found on this machine)"),
	PP_OPT_STRING(0, "debug-dir", O(debug_dir), "DIR[:DIR...]",
		      "look for DWARF and debug files by build id there first (then "
		      "$PP_DEBUGINFO_PATH, /usr/lib/debug, the binary)"),
	PP_OPT_BOOL(0, "debuginfod", O(debuginfod),
		    "fetch the debug files of binaries the capture has no symbols for from "
		    "$DEBUGINFOD_URLS (libdebuginfod, cached)"),
	PP_OPT_STRING(0, "prio", O(prio), "prio[-prio],...",
		      "only samples of tasks of these priorities (0-139, as sched_switch has them)"),
	PP_OPT_END(),
};

static int profile_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->exclude_user && c->exclude_kernel) {
		snprintf(err, errsz,
			 "profile: --exclude-user and --exclude-kernel leave nothing to sample");
		return PP_EUSAGE;
	}
	const struct profile_opts *o = a->opts;

	if (o->prio) {
		int *v = NULL;
		size_t nr = 0;
		int rc = pp_parse_list(o->prio, 140, &v, &nr);

		free(v);
		if (rc || !nr) {
			snprintf(err, errsz, "profile: --prio %s: priorities 0-139 (0,100-120)", o->prio);
			return PP_EUSAGE;
		}
		if (c->events.nr) {
			snprintf(err, errsz, "profile: --prio filters the default sampling event, not -e");
			return PP_EUSAGE;
		}
	}
	for (size_t i = 0; i < c->events.nr; i++)
		pp_plan_add_event(p, c->events.v[i]);
	if (!c->events.nr)
		pp_plan_add_event(p, pp_have_pmu() ? "cycles" : "cpu-clock");
	if (o->prio)	/* whose sample it is and its priority: every CPU's switches */
		pp_plan_add_event(p, "sched:sched_switch");
	if (!p->freq && !p->period)
		p->freq = 997;
	return 0;
}

const struct pp_plan_ops azp_profile_plan = {
	.options = profile_options,
	.opts_size = sizeof(struct profile_opts),
	.plan = profile_plan,
};
