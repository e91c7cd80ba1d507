/* SPDX-License-Identifier: MIT */
/*
 * report.h - the options of the report analyzer, shared by report.c and
 * report-plan.c (which pp-record links).
 */
#ifndef PP_AZ_REPORT_H
#define PP_AZ_REPORT_H

#include <stdbool.h>

struct report_opts {
	int max_rows;		/* --max-rows: rows a table keeps (0: the default, 100) */
	int max_frames;		/* --max-frames: frames a flame graph keeps (0: 20000) */
	const char *flame_min;	/* --flame-min PCT: frames under this share left out (0.01) */
	const char *title;	/* --title: the page's title */
	bool syscalls;		/* --syscalls: record raw_syscalls too (the plan) */
};

#endif
