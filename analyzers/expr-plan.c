/* SPDX-License-Identifier: MIT */
/*
 * expr-plan.c - expr takes the common options and one positional expression;
 * it records the -e events as given.
 */
#include "common/plan.h"

const struct pp_plan_ops azp_expr_plan = {
	.name = "expr",
};
