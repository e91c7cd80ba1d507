/* SPDX-License-Identifier: MIT */
/* stat.h - the options stat's plan part and analyzer share. */
#ifndef PP_ANALYZERS_STAT_H
#define PP_ANALYZERS_STAT_H

#include <stdbool.h>

struct stat_opts {
	bool packed;			/* perf-prof's packed layout off a terminal too */
};

#endif
