/* SPDX-License-Identifier: MIT */
/*
 * exprenv.c - the event of the expression and filter fuzz targets (exprenv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "tests/fuzz/exprenv.h"
#include "tests/unit/expr-fields.h"

static const struct pp_field fields[] = {
	TEX_SCHED_FIELDS
	{ "comm", 8, 16, 1, true, true, true, false, false },
	{ "pid", 24, 4, 4, true, false, false, false, false },
};

static const char *const var_names[] = { "key", "period" };
static uint64_t vars[2] = { 7, 1000000 };
static uint8_t default_rec[FZX_REC_SZ];

static const char *ksymbol(void *priv, uint64_t addr)
{
	(void)priv;
	return addr & 1 ? "do_sys_open" : NULL;
}

static const char *comm_get(void *priv, int pid)
{
	(void)priv;
	return pid & 1 ? "python3" : NULL;
}

static const char *syscall_name(void *priv, int id)
{
	(void)priv;
	return id == 0 ? "read" : NULL;
}

static const struct pp_expr_ops ops = { ksymbol, comm_get, syscall_name };

static FILE *devnull(void)
{
	static FILE *fp;

	if (!fp)
		fp = fopen("/dev/null", "w");
	return fp;
}

char *fzx_split(const uint8_t *data, size_t size, struct pp_expr_ctx *ctx)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size;

	if (!default_rec[8]) {
		memcpy(default_rec + 8, "bash", 4);
		memcpy(default_rec + 40, "swapper/0", 9);
		default_rec[24] = 42;
		default_rec[64] = 128;	/* filename: 10 bytes at 128 */
		default_rec[66] = 10;
		memcpy(default_rec + 128, "/bin/sh", 8);
	}
	memset(ctx, 0, sizeof(*ctx));
	if (nul) {
		ctx->raw = nul + 1;
		ctx->raw_sz = (uint32_t)(size - n - 1);
	} else {
		ctx->raw = default_rec;
		ctx->raw_sz = sizeof(default_rec);
	}
	ctx->cpu = 1;
	ctx->pid = 42;
	ctx->tid = 43;
	ctx->time_ns = 123456789;
	ctx->vars = vars;
	ctx->out = devnull();
	ctx->ops = &ops;
	return pp_xstrndup((const char *)data, n);
}

struct pp_expr_env fzx_env(unsigned flags)
{
	struct pp_expr_env env = {
		.fields = fields, .nr_fields = PP_ARRAY_SIZE(fields),
		.vars = var_names, .nr_vars = 2, .flags = flags,
	};
	return env;
}

void fzx_run(const struct pp_expr *e, struct pp_expr_ctx *ctx)
{
	struct pp_buf b = PP_BUF_INIT;
	char s[64];

	(void)pp_expr_eval(e, ctx);
	if (pp_expr_is_string(e))
		(void)pp_expr_eval_str(e, ctx, s, sizeof(s));
	(void)pp_expr_flags(e);
	pp_expr_dump(e, &b);
	(void)pp_expr_eval_trace(e, ctx, &b);
	pp_buf_release(&b);
}
