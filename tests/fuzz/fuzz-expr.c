/* SPDX-License-Identifier: MIT */
/*
 * fuzz-expr.c - libFuzzer entry: the expression compiler and its stack machine.
 *
 * The input is "EXPRESSION\0RECORD" (exprenv.h): the expression is compiled
 * against the fields of exprenv.c, and again for an event without fields
 * (PP_EXPR_SAMPLE_NAMES: pid, tid and cpu are the sample's); whatever
 * compiles is run on the record every way (value, string, trace, listing).
 * system() is never allowed: the compiler must refuse it.  A compile error
 * must come with a position inside the text.  Not here: filters
 * (fuzz-filter.c).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/exprenv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const char *text, struct pp_expr_env *env, struct pp_expr_ctx *ctx)
{
	struct pp_parse_error err;
	struct pp_expr *e = NULL;
	int rc = pp_expr_compile(text, env, &e, &err);

	if (rc) {
		/* a caret must point into the text (or at its end) */
		if (err.pos > (int)strlen(text) || err.pos < -1 || !err.msg[0])
			abort();
		if (e)
			abort();
		return;
	}
	fzx_run(e, ctx);	/* printf() goes to /dev/null; system() was refused (PP_EOFFLINE) */
	pp_expr_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_expr_ctx ctx;
	char *text = fzx_split(data, size, &ctx);
	struct pp_expr_env env = fzx_env(0), bare = fzx_env(PP_EXPR_SAMPLE_NAMES);

	bare.nr_fields = 0;
	one(text, &env, &ctx);
	one(text, &bare, &ctx);
	free(text);
	return 0;
}
