/* SPDX-License-Identifier: MIT */
/*
 * diff/gate.c - --fail-if EXPR: which keys of a comparison are regressions.
 *
 * The expression is the project's own language (common/expr.h), compiled
 * once per table against that table's names and run once per key:
 *
 *   NAME, after.NAME   a value column in the after report
 *   before.NAME        the same column in the before report
 *   delta.NAME         NAME - before.NAME
 *   new, gone          1 for a key on one side only (its missing values are 0)
 *   KEY                a numeric key column (pid); a text key column (syscall,
 *                      comm) is a string: syscall == "read", comm ~ "java*"
 *
 * Values are doubles and decimal constants are allowed (1.10 * before.p99).
 * A table that lacks a name the expression uses is not gated; the expression
 * must compile for one table at least, else its error is the answer.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

#define KEY_STR_SZ 256	/* a text key as an expression field: char[256] */

enum { V_AFTER, V_AFTER2, V_BEFORE, V_DELTA, V__PER_COL };

struct gate_env {
	const char **vars;
	size_t nr_vars;
	struct pp_field *fields;
	size_t nr_fields;
};

/* The names of table @t: per value column V__PER_COL, then numeric keys, new, gone. */
static void env_build(const struct ana_dtdiff *t, struct gate_env *g)
{
	size_t n = 0;

	g->vars = pp_xcalloc(t->nr_cols * V__PER_COL + 2, sizeof(*g->vars));
	g->fields = pp_xcalloc(t->nr_cols + 1, sizeof(*g->fields));
	for (size_t k = 0; k < t->nr_cols; k++) {
		const struct ana_dcol *c = &t->cols[k];

		if (c->is_value) {
			g->vars[n++] = pp_xstrdup(c->name);
			g->vars[n++] = pp_xasprintf("after.%s", c->name);
			g->vars[n++] = pp_xasprintf("before.%s", c->name);
			g->vars[n++] = pp_xasprintf("delta.%s", c->name);
		} else if (c->is_key && c->is_num) {
			g->vars[n++] = pp_xstrdup(c->name);
		} else if (c->is_key) {	/* a string: a char[] field of the record */
			g->fields[g->nr_fields++] = (struct pp_field){
				.name = c->name, .offset = (uint32_t)(k * KEY_STR_SZ),
				.size = KEY_STR_SZ, .elem_size = 1, .is_array = true,
				.is_string = true };
		}
	}
	g->vars[n++] = pp_xstrdup("new");
	g->vars[n++] = pp_xstrdup("gone");
	g->nr_vars = n;
}

static void env_release(struct gate_env *g)
{
	for (size_t i = 0; i < g->nr_vars; i++)
		free((char *)g->vars[i]);
	free(g->vars);
	free(g->fields);
}

static uint64_t dbits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* Whether key @r of @t matches: the variables and the record filled the way env_build named them. */
static bool row_matches(const struct ana_dtdiff *t, const struct ana_drow *r,
			const struct pp_expr *e, const struct gate_env *g, uint64_t *vals, char *rec)
{
	struct pp_expr_ctx ctx = { .raw = rec, .raw_sz = (uint32_t)(t->nr_cols * KEY_STR_SZ),
				   .vars = vals };
	size_t n = 0;

	for (size_t k = 0; k < t->nr_cols; k++) {
		const struct ana_dcol *c = &t->cols[k];
		double b, a;

		if (c->is_value) {
			ana_dvalue(t, r, c, 0, &b);
			ana_dvalue(t, r, c, 1, &a);
			vals[n++] = dbits(a);
			vals[n++] = dbits(a);
			vals[n++] = dbits(b);
			vals[n++] = dbits(a - b);
		} else if (c->is_key) {
			const struct ana_dcell *cl = ana_dcell_of(t, r, c, r->row[0] != SIZE_MAX ? 0 : 1);
			char *s = rec + k * KEY_STR_SZ;

			if (c->is_num) {
				vals[n++] = dbits(cl ? cl->num : 0);
				continue;
			}
			memset(s, 0, KEY_STR_SZ);
			if (cl)
				strncpy(s, cl->text, KEY_STR_SZ - 1);
		}
	}
	vals[n++] = dbits(r->status == ANA_DROW_NEW);
	vals[n++] = dbits(r->status == ANA_DROW_GONE);
	return pp_expr_eval_num(e, &ctx) != 0;
}

/* The tripped keys first, each part in the order it had. */
static void tripped_first(struct ana_dtdiff *t)
{
	struct ana_drow *v = pp_xmalloc((t->nr_rows + 1) * sizeof(*v));
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < t->nr_rows; r++)
			if (t->rows[r].tripped == !pass)
				v[n++] = t->rows[r];
	memcpy(t->rows, v, t->nr_rows * sizeof(*v));
	free(v);
}

int ana_diff_gate(struct ana_diff *d, const char *expr)
{
	struct pp_parse_error first = { .pos = -1 };
	int first_rc = 0;
	bool any = false;

	d->nr_tripped = 0;
	for (size_t i = 0; i < d->nr; i++) {
		struct ana_dtdiff *t = &d->t[i];
		struct gate_env g = { 0 };
		struct pp_parse_error err = { .pos = -1 };
		struct pp_expr *e;
		int rc;

		env_build(t, &g);
		struct pp_expr_env env = { .fields = g.fields, .nr_fields = g.nr_fields,
					   .vars = g.vars, .nr_vars = g.nr_vars,
					   .flags = PP_EXPR_DOTTED_NAMES | PP_EXPR_DOUBLE };

		rc = pp_expr_compile(expr, &env, &e, &err);
		if (rc) {
			if (!first_rc) {
				first_rc = rc;
				first = err;
			}
			env_release(&g);
			if (rc != PP_EUNKNOWN_FIELD)
				break;	/* the same error in every table */
			continue;
		}
		any = true;
		t->gated = true;

		uint64_t *vals = pp_xcalloc(g.nr_vars + 1, sizeof(*vals));
		char *rec = pp_xcalloc(t->nr_cols + 1, KEY_STR_SZ);

		for (size_t r = 0; r < t->nr_rows; r++) {
			t->rows[r].tripped = row_matches(t, &t->rows[r], e, &g, vals, rec);
			d->nr_tripped += t->rows[r].tripped;
		}
		free(vals);
		free(rec);
		pp_expr_free(e);
		env_release(&g);
	}
	if (any && (!first_rc || first_rc == PP_EUNKNOWN_FIELD)) {
		for (size_t i = 0; i < d->nr; i++)
			tripped_first(&d->t[i]);
		return 0;
	}
	if (!first_rc) {	/* no table at all */
		first_rc = PP_EUSAGE;
		snprintf(first.msg, sizeof(first.msg), "the reports have no table to gate");
	}
	pp_parse_error_print("--fail-if", expr, &first);
	return first_rc;
}
