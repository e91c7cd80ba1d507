/* SPDX-License-Identifier: MIT */
/*
 * test-expr.h - the fixture shared by the expression suites: a fake
 * sched_switch-like event with extra fields of every kind, and helpers that
 * compile, evaluate and report failures at the caller's line.
 */
#ifndef PP_TESTS_UNIT_TEST_EXPR_H
#define PP_TESTS_UNIT_TEST_EXPR_H

#include <stdint.h>

#include "common/expr.h"
#include "tests/unit/unit.h"

#define TEX_REC_SZ 152

extern const struct pp_field tex_fields[];
extern const size_t tex_nr_fields;
extern uint8_t tex_rec[TEX_REC_SZ];
extern struct pp_expr_ctx tex_ctx;
extern uint64_t tex_vars[2];	/* "key", "period" */

/* Fill tex_rec and reset tex_ctx to point at it. */
void tex_setup(void);
/* The environment (fields + variables) with extra @flags. */
struct pp_expr_env tex_env(unsigned flags);

/* Compile @text (a filter when @filter) and evaluate it; fails the test at @line on errors. */
int64_t tex_eval(const char *text, bool filter, const char *file, int line);
/* Compile and evaluate a string expression. */
void tex_eval_str(const char *text, const char *want, const char *file, int line);
/* Expect a compile error @code at @pos with @msg in the message. */
void tex_bad(const char *text, bool filter, int code, int pos, const char *msg, const char *file,
	     int line);

#define EQ(text, want)                                                                     \
	CU_assertImplementation(tex_eval(text, false, __FILE__, __LINE__) == (int64_t)(want),  \
				__LINE__, #text " == " #want, __FILE__, "", CU_FALSE)
#define FEQ(text, want)                                                                    \
	CU_assertImplementation(tex_eval(text, true, __FILE__, __LINE__) == (int64_t)(want),   \
				__LINE__, "filter " #text " == " #want, __FILE__, "", CU_FALSE)
#define STR(text, want) tex_eval_str(text, want, __FILE__, __LINE__)
#define BAD(text, code, pos, msg) tex_bad(text, false, code, pos, msg, __FILE__, __LINE__)
#define FBAD(text, code, pos, msg) tex_bad(text, true, code, pos, msg, __FILE__, __LINE__)

/* The tests of test-expr-filter.c, for the "expr" suite. */
const struct pp_test *test_expr__more(size_t *nr);

#endif
