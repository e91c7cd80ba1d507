/* SPDX-License-Identifier: MIT */
/*
 * trace-plan.c - what trace records: the -e events as given (with -g stacks).
 */
#include "common/plan.h"

const struct pp_plan_ops azp_trace_plan = {
	.name = "trace",
};
