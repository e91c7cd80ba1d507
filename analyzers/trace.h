/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the options of the trace analyzer, shared by trace.c and trace-plan.c.
 */
#ifndef PP_ANALYZERS_TRACE_H
#define PP_ANALYZERS_TRACE_H

#include <stdbool.h>

#include "common/plan.h"

struct trace_opts {
	bool generic_print;	/* hidden: libtraceevent for every event (fast-path tests) */
	bool ptrace;		/* --ptrace: accepted, pp-record follows new threads itself */
	bool overwrite;		/* --overwrite: only the newest events that fit each CPU's ring, at the end */
};

#endif
