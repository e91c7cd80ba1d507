/* SPDX-License-Identifier: MIT */
/*
 * cpu-util.h - the options of the cpu-util analyzer, shared by cpu-util.c and
 * cpu-util-plan.c (which pp-record links).
 */
#ifndef PP_AZ_CPU_UTIL_H
#define PP_AZ_CPU_UTIL_H

#include <stdbool.h>

struct cpu_util_opts {
	bool split;		/* --split: the usr and sys lines under each [all] line */
};

/* The sampling period of the cpu-clock fallback when neither --period nor -F is given. */
#define CPU_UTIL_CLOCK_PERIOD_NS 1000000ull

#endif
