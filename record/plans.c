/* SPDX-License-Identifier: MIT */
/*
 * plans.c - the plan part of every analyzer, for `pp-record --for`.
 *
 * The same analyzers.def list as pp-analyze's registry: an analyzer added
 * there is recordable with --for at once.  Analyzers whose plan column says
 * `none` record their -e events as given (pp_plan_none).  An alias of
 * analyzers.def (PP_ALIAS: perf-prof's "bpf:kvm_exit") finds the plan of its
 * analyzer.
 */
#include <string.h>

#include "common/plan.h"
#include "record/plans.h"

#define PP_ANALYZER(n, name, plan, caps) PP_PLAN_DECL(plan, n)
#include "analyzers/analyzers.def"
#undef PP_ANALYZER

static const struct {
	const char *name, *c_name;
	const struct pp_plan_ops *plan;
} plans[] = {
#define PP_ANALYZER(n, name, plan, caps) { name, #n, PP_PLAN_REF(plan, n) },
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
};

static const struct {
	const char *alias, *c_name;
} aliases[] = {
#define PP_ANALYZER(n, name, plan, caps)
#define PP_ALIAS(a, n) { a, #n },
#include "analyzers/analyzers.def"
#undef PP_ALIAS
#undef PP_ANALYZER
	{ NULL, NULL },
};

const struct pp_plan_ops *rec_plan_find(const char *name)
{
	const char *c_name = NULL;

	for (size_t a = 0; aliases[a].alias && !c_name; a++)
		if (!strcmp(aliases[a].alias, name))
			c_name = aliases[a].c_name;
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		if (c_name ? !strcmp(plans[i].c_name, c_name) : !strcmp(plans[i].name, name))
			return plans[i].plan;
	return NULL;
}
