/* SPDX-License-Identifier: MIT */
/* hrcount.h - the options hrcount's plan part and analyzer share. */
#ifndef PP_ANALYZERS_HRCOUNT_H
#define PP_ANALYZERS_HRCOUNT_H

#include <stdbool.h>

struct hrcount_opts {
	bool packed;			/* perf-prof's packed layout off a terminal too */
};

#endif
