/* SPDX-License-Identifier: MIT */
/*
 * sql-plan.c - what sql records: the -e events as given (every event of the
 * capture when replaying without -e); its options.
 */
#include <stdio.h>

#include "analyzers/sql.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct sql_opts, f)

static const struct pp_option sql_options[] = {
	PP_OPT_GROUP("sql options:"),
	PP_OPT_STRING(0, "query", O(query), "SQL", "queries separated by ';', run at the end (or every -i)"),
	PP_OPT_STRING(0, "output2", O(output2), "file.db", "write the events to an SQLite database file"),
	PP_OPT_STRING(0, "mode", O(mode), "auto|vtab|table", "virtual tables over a column store, or bulk-loaded tables"),
	PP_OPT_BOOL(0, "verify", O(verify), "run every query in both modes and compare the results"),
	PP_OPT_END(),
};

static int sql_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct sql_opts *o = a->opts;

	if (!o->query && !o->output2) {
		snprintf(err, errsz, "sql: needs --query and/or --output2");
		return PP_EUSAGE;
	}
	for (size_t i = 0; i < a->common->events.nr; i++)
		pp_plan_add_event(p, a->common->events.v[i]);
	return 0;
}

const struct pp_plan_ops azp_sql_plan = {
	.options = sql_options,
	.opts_size = sizeof(struct sql_opts),
	.plan = sql_plan,
};
