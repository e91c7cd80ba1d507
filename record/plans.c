/* SPDX-License-Identifier: MIT */
/*
 * plans.c - the plan part of every analyzer, for `pp-record --for`.
 *
 * The same analyzers.def list as pp-analyze's registry: an analyzer added
 * there is recordable with --for at once.  Analyzers whose plan column says
 * `none` record their -e events as given (pp_plan_none).
 */
#include <string.h>

#include "common/plan.h"
#include "record/plans.h"

#define PP_ANALYZER(n, name, plan, caps) PP_PLAN_DECL(plan, n)
#include "analyzers/analyzers.def"
#undef PP_ANALYZER

static const struct {
	const char *name;
	const struct pp_plan_ops *plan;
} plans[] = {
#define PP_ANALYZER(n, name, plan, caps) { name, PP_PLAN_REF(plan, n) },
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
};

const struct pp_plan_ops *rec_plan_find(const char *name)
{
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		if (!strcmp(plans[i].name, name))
			return plans[i].plan;
	return NULL;
}
