/* SPDX-License-Identifier: MIT */
/*
 * num-dist-plan.c - num-dist takes only the common options and records the
 * -e events as given (with stacks for -g or `stack`).
 */
#include "common/plan.h"

const struct pp_plan_ops azp_num_dist_plan = {
	.name = "num-dist",
};
