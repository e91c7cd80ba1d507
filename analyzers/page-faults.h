/* SPDX-License-Identifier: MIT */
/*
 * page-faults.h - the options of the page-faults analyzer, shared by
 * page-faults.c and page-faults-plan.c (which pp-record links).
 */
#ifndef PP_AZ_PAGE_FAULTS_H
#define PP_AZ_PAGE_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

struct page_faults_opts {
	bool summary;		/* --summary: the summary tables only, no line per fault */
	uint64_t top;		/* --top N: rows of the by-symbol table (default 30) */
};

#endif
