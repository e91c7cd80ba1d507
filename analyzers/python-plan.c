/* SPDX-License-Identifier: MIT */
/*
 * python-plan.c - what python records: the -e events as given (with -g
 * stacks); the script and its arguments are positional and not needed to
 * record.
 */
#include "analyzers/python.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct python_opts, f)

static const struct pp_option python_options[] = {
	PP_OPT_GROUP("python options:"),
	PP_OPT_BOOL(0, "strict", O(strict), "stop at the first exception raised by a callback"),
	PP_OPT_END(),
};

const struct pp_plan_ops azp_python_plan = {
	.options = python_options,
	.opts_size = sizeof(struct python_opts),
};
