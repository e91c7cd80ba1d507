/* SPDX-License-Identifier: MIT */
/*
 * exprenv.h - the event the expression and filter fuzz targets compile against.
 *
 * A sched_switch-like record with a field of every kind the compiler tells
 * apart (signed and unsigned of each size, char[N], __data_loc char[] and
 * u16[], fixed arrays, a pointer), two caller variables, and hooks for the
 * built-ins that ask the outside world.  The input's bytes after the
 * expression text become the record, so reads past its end and odd
 * __data_loc values are exercised too.  Not here: the targets.
 */
#ifndef PP_TESTS_FUZZ_EXPRENV_H
#define PP_TESTS_FUZZ_EXPRENV_H

#include <stddef.h>
#include <stdint.h>

#include "common/expr.h"

#define FZX_REC_SZ 136

/**
 * fzx_split() - the input as "TEXT\0RECORD": the text (malloc'ed, caller frees)
 * and the record (a default one when the input has no NUL).
 * @ctx: filled for an evaluation on the record (borrowed from @data or a static)
 */
char *fzx_split(const uint8_t *data, size_t size, struct pp_expr_ctx *ctx);

/** fzx_env() - the fields and variables, with extra PP_EXPR_* @flags. */
struct pp_expr_env fzx_env(unsigned flags);

/** fzx_run() - evaluate @e every way there is (value, string, trace, dump). */
void fzx_run(const struct pp_expr *e, struct pp_expr_ctx *ctx);

#endif
