/* SPDX-License-Identifier: MIT */
/*
 * top.h - the options of the top analyzer, shared by top.c and top-plan.c.
 */
#ifndef PP_ANALYZERS_TOP_H
#define PP_ANALYZERS_TOP_H

#include <stdbool.h>

#include "common/plan.h"

struct top_opts {
	bool only_comm;		/* --only-comm: rows are names, the key column is hidden */
};

#endif
