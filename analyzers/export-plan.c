/* SPDX-License-Identifier: MIT */
/*
 * export-plan.c - what export records: the -e events as given; without -e, what the
 * format shows best: the scheduler events for the timelines (chrome, perfetto), cpu-clock
 * with call stacks for the profiles (pprof, folded).  The profiles always record stacks.
 */
#include <stdio.h>
#include <string.h>

#include "analyzers/export.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct export_opts, f)

static const struct pp_option export_options[] = {
	PP_OPT_GROUP("export options:"),
	PP_OPT_STRING(0, "to", O(to), "format", "chrome, perfetto, pprof, jsonl, csv or folded"),
	PP_OPT_STRING(0, "value", O(value), "count|period|EXPR",
		      "pprof, folded: a sample's weight (default: period of clocks, else count)"),
	PP_OPT_BOOL(0, "stacks", O(stacks), "jsonl, csv: add a symbolized stack column"),
	PP_OPT_BOOL(0, "no-inline", O(no_inline),
		    "folded: no inline frames (by default from DWARF, as profile)"),
	PP_OPT_STRING(0, "debug-dir", O(debug_dir), "DIR[:DIR...]",
		      "look for DWARF and symbols there first (as profile --debug-dir)"),
	PP_OPT_BOOL(0, "debuginfod", O(debuginfod),
		    "fetch missing symbols from $DEBUGINFOD_URLS (as profile --debuginfod)"),
	PP_OPT_END(),
};

static const char *const formats[] = { "chrome", "perfetto", "pprof", "jsonl", "csv", "folded" };

static int export_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct export_opts *o = a->opts;
	const struct pp_common_opts *c = a->common;
	const char *to = o->to;
	bool known = false, profile;

	if (!to && c->format && !strcmp(c->format, "json"))
		to = "jsonl";
	else if (!to && c->format && !strcmp(c->format, "csv"))
		to = "csv";
	for (size_t i = 0; to && i < sizeof(formats) / sizeof(formats[0]); i++)
		known |= !strcmp(to, formats[i]);
	if (!known) {
		snprintf(err, errsz,
			 "export: --to %s: use chrome, perfetto, pprof, jsonl, csv or folded",
			 to ? to : "is required");
		return PP_EUSAGE;
	}
	profile = !strcmp(to, "pprof") || !strcmp(to, "folded");
	for (size_t i = 0; i < c->events.nr; i++)
		pp_plan_add_event(p, c->events.v[i]);
	if (!c->events.nr && profile) {
		pp_plan_add_event(p, "cpu-clock");
		if (!p->freq && !p->period)
			p->freq = 997;
	} else if (!c->events.nr && (!strcmp(to, "chrome") || !strcmp(to, "perfetto"))) {
		pp_plan_add_event(p, "sched:sched_switch");
		pp_plan_add_event(p, "sched:sched_wakeup");
		pp_plan_add_event(p, "sched:sched_wakeup_new");
	}
	if (profile || o->stacks)
		p->callchain = true;
	return 0;
}

const struct pp_plan_ops azp_export_plan = {
	.options = export_options,
	.opts_size = sizeof(struct export_opts),
	.plan = export_plan,
};
