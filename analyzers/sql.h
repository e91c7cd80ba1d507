/* SPDX-License-Identifier: MIT */
/*
 * sql.h - the options of the sql analyzer, shared by sql.c and sql-plan.c
 * (which pp-record links).
 */
#ifndef PP_AZ_SQL_H
#define PP_AZ_SQL_H

#include <stdbool.h>

struct sql_opts {
	const char *query;	/* --query 'SQL; SQL' */
	const char *output2;	/* --output2 FILE.db */
	const char *mode;	/* --mode auto|vtab|table */
	bool verify;		/* --verify: run every query in both modes and compare */
};

#endif
