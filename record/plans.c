/* SPDX-License-Identifier: MIT */
/*
 * plans.c - the plan part of every analyzer, for `pp-record --for`.
 *
 * The same analyzers.def list as pp-analyze's registry: an analyzer added
 * there is recordable with --for at once.
 */
#include <string.h>

#include "common/plan.h"
#include "record/plans.h"

#define PP_ANALYZER(n) extern const struct pp_plan_ops azp_##n##_plan;
#include "analyzers/analyzers.def"
#undef PP_ANALYZER

static const struct pp_plan_ops *const plans[] = {
#define PP_ANALYZER(n) &azp_##n##_plan,
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
};

const struct pp_plan_ops *rec_plan_find(const char *name)
{
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		if (!strcmp(plans[i]->name, name))
			return plans[i];
	return NULL;
}

size_t rec_plan_count(void)
{
	return sizeof(plans) / sizeof(plans[0]);
}

const struct pp_plan_ops *rec_plan_at(size_t i)
{
	return i < rec_plan_count() ? plans[i] : NULL;
}
