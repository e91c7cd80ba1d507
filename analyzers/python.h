/* SPDX-License-Identifier: MIT */
/*
 * python.h - the options of the python analyzer, shared by python.c and
 * python-plan.c (which pp-record links).
 */
#ifndef PP_AZ_PYTHON_H
#define PP_AZ_PYTHON_H

#include <stdbool.h>

struct python_opts {
	bool strict;		/* --strict: the first exception in a callback ends the run */
};

#endif
