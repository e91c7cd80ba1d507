/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the options of the profile analyzer, shared by profile.c and
 * profile-plan.c (which pp-record links).
 */
#ifndef PP_AZ_PROFILE_H
#define PP_AZ_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

struct profile_opts {
	uint64_t top;		/* --top N: rows of the symbol table (default 40) */
	const char *sort;	/* --sort KEY,...: self|children, dso, sym */
	bool all;		/* --all: every symbol, however small */
	bool no_inline;		/* --no-inline: no inline frames from DWARF */
	const char *debug_dir;	/* --debug-dir DIRS: where to look for DWARF first */
	bool debuginfod;	/* --debuginfod: missing symbols from $DEBUGINFOD_URLS */
	const char *prio;	/* --prio LIST: samples of tasks of these priorities (sched_switch) */
};

#endif
