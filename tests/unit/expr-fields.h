/* SPDX-License-Identifier: MIT */
/*
 * expr-fields.h - the fields of the fake sched_switch record that the expression tests
 * evaluate on (tests/unit/test-expr.c) and the expression fuzz targets too
 * (tests/fuzz/exprenv.c): sched_switch's layout, then fields of every other kind.
 */
#ifndef PP_TESTS_UNIT_EXPR_FIELDS_H
#define PP_TESTS_UNIT_EXPR_FIELDS_H

/* The initializers of a struct pp_field array, 128 bytes of record. */
#define TEX_SCHED_FIELDS \
	{ "common_type", 0, 2, 2, false, false, false, false, false }, \
	{ "common_flags", 2, 1, 1, false, false, false, false, false }, \
	{ "common_preempt_count", 3, 1, 1, false, false, false, false, false }, \
	{ "common_pid", 4, 4, 4, true, false, false, false, false }, \
	{ "prev_comm", 8, 16, 1, true, true, true, false, false }, \
	{ "prev_pid", 24, 4, 4, true, false, false, false, false }, \
	{ "prev_prio", 28, 4, 4, true, false, false, false, false }, \
	{ "prev_state", 32, 8, 8, true, false, false, false, false }, \
	{ "next_comm", 40, 16, 1, true, true, true, false, false }, \
	{ "next_pid", 56, 4, 4, true, false, false, false, false }, \
	{ "next_prio", 60, 4, 4, true, false, false, false, false }, \
	{ "filename", 64, 4, 1, true, false, true, true, false }, \
	{ "vals", 68, 4, 2, false, false, false, true, false }, \
	{ "bytes", 72, 8, 1, false, true, false, false, false }, \
	{ "ints", 80, 16, 4, true, true, false, false, false }, \
	{ "address", 96, 8, 8, false, false, false, false, false }, \
	{ "order", 104, 4, 4, false, false, false, false, false }, \
	{ "sval", 108, 2, 2, true, false, false, false, false }, \
	{ "uc", 110, 1, 1, false, false, false, false, false }, \
	{ "sc", 111, 1, 1, true, false, false, false, false }, \
	{ "ptr", 112, 8, 8, false, false, false, false, true }, \
	{ "big", 120, 8, 8, false, false, false, false, false },

#endif
