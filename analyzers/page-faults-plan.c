/* SPDX-License-Identifier: MIT */
/*
 * page-faults-plan.c - what page-faults records: the page-faults software
 * event, every fault (period 1) with its address, with call chains and user
 * registers for -g.
 */
#include <stdio.h>

#include "analyzers/page-faults.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct page_faults_opts, f)

static const struct pp_option page_faults_options[] = {
	PP_OPT_GROUP("page-faults options:"),
	PP_OPT_BOOL(0, "summary", O(summary), "only the summary by symbol and by process"),
	PP_OPT_U64(0, "top", O(top), "N", "rows of the by-symbol summary (default 30)"),
	PP_OPT_END(),
};

static int page_faults_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			    size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->events.nr) {
		snprintf(err, errsz,
			 "page-faults: does not take -e: it records the page-faults event");
		return PP_EUSAGE;
	}
	pp_plan_add_event(p, "page-faults");
	p->period = 1;
	p->regs = c->callchain;
	return 0;
}

const struct pp_plan_ops azp_page_faults_plan = {
	.options = page_faults_options,
	.opts_size = sizeof(struct page_faults_opts),
	.plan = page_faults_plan,
};
