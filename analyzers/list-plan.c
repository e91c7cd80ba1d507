/* SPDX-License-Identifier: MIT */
/*
 * list-plan.c - list records nothing of its own: it lists what a capture has.
 */
#include "common/plan.h"

const struct pp_plan_ops azp_list_plan = {
	.name = "list",
};
