/* SPDX-License-Identifier: MIT */
/*
 * multi-trace.h - the options of multi-trace, shared by multi-trace.c and
 * multi-trace-plan.c (which pp-record links).
 */
#ifndef PP_AZ_MULTI_TRACE_H
#define PP_AZ_MULTI_TRACE_H

#include <stdbool.h>

struct multi_trace_opts {
	const char *impl;	/* --impl delay|pair|kmemprof|syscalls */
	bool cycle;		/* --cycle: the last -e back to the first */
};

#endif
