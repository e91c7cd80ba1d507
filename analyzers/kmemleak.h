/* SPDX-License-Identifier: MIT */
/*
 * kmemleak.h - the options of the kmemleak analyzer, shared by kmemleak.c and
 * kmemleak-plan.c (which pp-record links).
 */
#ifndef PP_AZ_KMEMLEAK_H
#define PP_AZ_KMEMLEAK_H

#include <stdbool.h>

struct kmemleak_opts {
	const char *alloc;	/* --alloc EVENTS: allocation events (ptr=, size=, stack) */
	const char *free;	/* --free EVENTS: release events (ptr=) */
	bool comm;		/* --comm: the commands behind each leaking stack */
};

#endif
