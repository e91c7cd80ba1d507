/* SPDX-License-Identifier: MIT */
/*
 * fuzz-filter.c - libFuzzer entry: the filter compiler and the generated filters.
 *
 * The input is "TEXT\0RECORD" (exprenv.h).  TEXT is compiled as a filter
 * (kernel syntax, expressions, CPUS{...}, unquoted strings) and run on the
 * record.  It is also read as --filter's comm list and as a pid list: the
 * filters pp_filter_from_comm_list() and pp_filter_from_pids() generate
 * from them must compile, and must match a record whose comm (pid) is one
 * of the list's and no other pid - the text a user cannot see is checked
 * against what it means.  Not here: expressions alone (fuzz-expr.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tests/fuzz/exprenv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pp_expr *compile(const char *text, bool must)
{
	struct pp_expr_env env = fzx_env(0);
	struct pp_parse_error err;
	struct pp_expr *e = NULL;

	if (pp_filter_compile(text, &env, &e, &err)) {
		if (must || err.pos > (int)strlen(text) || err.pos < -1 || e)
			abort();
		return NULL;
	}
	return e;
}

/* Each name of the list (no glob, fits comm[16]) must match a record with that comm. */
static void comm_list(const char *list)
{
	struct pp_buf f = PP_BUF_INIT;
	struct pp_expr *e;
	uint8_t rec[FZX_REC_SZ] = { 0 };
	struct pp_expr_ctx ctx;
	char *copy = strdup(list), *save = NULL;
	char *t;

	pp_filter_from_comm_list(&f, "comm", list);
	if (!f.len || !copy)
		goto out;
	e = compile(pp_buf_str(&f), true);
	memset(&ctx, 0, sizeof(ctx));
	ctx.raw = rec;
	ctx.raw_sz = sizeof(rec);
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strlen(t) >= 16 || strpbrk(t, "*?[\\"))
			continue;
		memset(rec + 8, 0, 16);
		memcpy(rec + 8, t, strlen(t));
		if (!pp_filter_match(e, &ctx))
			abort();
	}
	pp_expr_free(e);
out:
	free(copy);
	pp_buf_release(&f);
}

/* The pids of the text's bytes, two at a time: the filter matches exactly them. */
static void pid_list(const uint8_t *data, size_t size)
{
	int pids[64];
	size_t nr = 0;
	struct pp_buf f = PP_BUF_INIT;
	uint8_t rec[FZX_REC_SZ] = { 0 };
	struct pp_expr_ctx ctx = { .raw = rec, .raw_sz = sizeof(rec) };

	for (size_t i = 0; i + 1 < size && nr < 64; i += 2)
		pids[nr++] = (int)(int16_t)(data[i] | data[i + 1] << 8);
	if (!nr)
		return;
	pp_filter_from_pids(&f, "pid", pids, nr);
	struct pp_expr *e = compile(pp_buf_str(&f), true);
	/* each pid of the list and its neighbours, and a sweep of the int16 range */
	for (size_t j = 0; j < nr + 64; j++) {
		int p = j < nr ? pids[j] : (int)(j - nr) * 1024 - 32768;
		int probe[3] = { p, p - 1, p + 1 };
		for (int k = 0; k < 3; k++) {
			bool want = false;
			for (size_t i = 0; i < nr; i++)
				want |= pids[i] == probe[k];
			memcpy(rec + 24, &probe[k], 4);
			if (pp_filter_match(e, &ctx) != want)
				abort();
		}
	}
	pp_expr_free(e);
	pp_buf_release(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_expr_ctx ctx;
	char *text = fzx_split(data, size, &ctx);
	struct pp_expr *e = compile(text, false);

	if (e) {
		fzx_run(e, &ctx);
		pp_expr_free(e);
	}
	comm_list(text);
	pid_list(data, size < 128 ? size : 128);
	free(text);
	return 0;
}
