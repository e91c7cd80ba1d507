/* SPDX-License-Identifier: MIT */
/*
 * nested-trace.h - the options of nested-trace, shared by nested-trace.c
 * and nested-trace-plan.c (which pp-record links).
 */
#ifndef PP_AZ_NESTED_TRACE_H
#define PP_AZ_NESTED_TRACE_H

struct nested_trace_opts {
	const char *impl;	/* --impl delay|call|call-delay */
};

#endif
