/* SPDX-License-Identifier: MIT */
/*
 * export.h - the export analyzer's own options, shared by export.c and export-plan.c.
 */
#ifndef PP_ANALYZERS_EXPORT_H
#define PP_ANALYZERS_EXPORT_H

#include <stdbool.h>

struct export_opts {
	const char *to;		/* --to FORMAT */
	const char *value;	/* --value count|period|EXPR */
	bool stacks;		/* --stacks */
	bool no_inline;		/* --no-inline: folded stacks without inline frames */
	const char *debug_dir;	/* --debug-dir DIRS: where to look for DWARF first */
	bool debuginfod;	/* --debuginfod: missing symbols from $DEBUGINFOD_URLS */
};

#endif
