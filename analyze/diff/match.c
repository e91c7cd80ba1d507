/* SPDX-License-Identifier: MIT */
/*
 * diff/match.c - two tables matched key by key, their values compared.
 *
 * Each side's rows get a key string from their key columns (diff.h); a key
 * seen again on the same side gets "#2", "#3" in the order of the rows, so a
 * report with repeated keys still pairs its rows in order.  Keys are matched
 * by sorting both sides' keys together.  A row's change is the largest
 * relative change of its values; the rows are then sorted by it (or by
 * |delta| of the --sort column), ties in the order of the before report.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"

/* Numeric columns that say which thing a row is about, not how much. */
static const char *const identity_cols[] = { "key", "id", "pid", "tid", "thread", "cpu" };

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = list; s && *s;) {
		size_t l = strcspn(s, ",");

		if (l == n && !memcmp(s, name, n))
			return true;
		s += l + (s[l] == ',');
	}
	return false;
}

const struct ana_dcell *ana_dcell_of(const struct ana_dtdiff *t, const struct ana_drow *r,
				     const struct ana_dcol *c, int side)
{
	const struct ana_dtable *tb = t->side[side];
	const struct ana_dcell *cell;

	if (!tb || c->col[side] < 0 || r->row[side] == SIZE_MAX)
		return NULL;
	cell = &tb->cells[r->row[side] * tb->nr_cols + (size_t)c->col[side]];
	return cell->text ? cell : NULL;
}

bool ana_dvalue(const struct ana_dtdiff *t, const struct ana_drow *r, const struct ana_dcol *c,
		int side, double *v)
{
	const struct ana_dcell *cell = ana_dcell_of(t, r, c, side);

	*v = 0;
	if (!cell || !cell->is_num)
		return false;
	*v = cell->num;
	return true;
}

static int decimals(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (int)strspn(dot + 1, "0123456789") : 0;
}

/* The union of both sides' columns, each a key, a value or neither. */
static void make_cols(struct ana_dtdiff *t, const struct ana_diff_opts *o, bool keys_here)
{
	for (int s = 0; s < 2; s++) {
		const struct ana_dtable *tb = t->side[s];

		for (size_t i = 0; tb && i < tb->nr_cols; i++) {
			size_t k;

			for (k = 0; k < t->nr_cols && strcmp(t->cols[k].name, tb->cols[i]); k++)
				;
			if (k == t->nr_cols) {
				t->cols = pp_xrealloc(t->cols, (k + 1) * sizeof(*t->cols));
				t->cols[k] = (struct ana_dcol){ .name = pp_xstrdup(tb->cols[i]),
								.col = { -1, -1 } };
				t->nr_cols++;
			}
			t->cols[k].col[s] = (int)i;
		}
	}
	for (size_t k = 0; k < t->nr_cols; k++) {
		struct ana_dcol *c = &t->cols[k];
		bool num = false, text = false;

		for (int s = 0; s < 2; s++) {
			const struct ana_dtable *tb = t->side[s];

			for (size_t r = 0; tb && c->col[s] >= 0 && r < tb->nr_rows; r++) {
				const struct ana_dcell *cl = &tb->cells[r * tb->nr_cols + (size_t)c->col[s]];

				if (cl->is_num) {
					num = true;
					if (decimals(cl->text) > c->decimals)
						c->decimals = decimals(cl->text);
				} else if (cl->text && *cl->text) {
					text = true;
				}
			}
		}
		c->is_num = num && !text;
		if (!strcmp(c->name, "time"))
			continue;	/* when the report was printed */
		bool ident = false;

		for (size_t i = 0; i < PP_ARRAY_SIZE(identity_cols); i++)
			ident |= !strcmp(c->name, identity_cols[i]);
		c->is_key = keys_here ? in_list(o->keys, c->name) : text || ident;
		/* an identity left out of the key (--match) is not a quantity either */
		c->is_value = !c->is_key && !ident && num && !text &&
			      (!o->columns || in_list(o->columns, c->name));
	}
}

struct kent {
	char *key;
	int side;
	size_t row;
};

static int kent_cmp(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The key strings of one side's rows, "#N" on the N-th row of one key. */
static void side_keys(const struct ana_dtdiff *t, int side, struct kent *out)
{
	const struct ana_dtable *tb = t->side[side];
	struct pp_buf b = PP_BUF_INIT;

	for (size_t r = 0; r < tb->nr_rows; r++) {
		pp_buf_reset(&b);
		for (size_t k = 0; k < t->nr_cols; k++) {
			const struct ana_dcol *c = &t->cols[k];
			const struct ana_dcell *cl;

			if (!c->is_key)
				continue;
			cl = c->col[side] >= 0 ? &tb->cells[r * tb->nr_cols + (size_t)c->col[side]] : NULL;
			pp_buf_addf(&b, "%s%s=%s", b.len ? " " : "", c->name,
				    cl && cl->text ? cl->text : "");
		}
		pp_buf_grow(&b, 1);
		out[r] = (struct kent){ pp_xstrdup(pp_buf_str(&b)), side, r };
	}
	pp_buf_release(&b);
	/* repeated keys: numbered in row order (the sort keeps rows in order within a key) */
	struct kent *v = pp_xmalloc((tb->nr_rows + 1) * sizeof(*v));

	memcpy(v, out, tb->nr_rows * sizeof(*v));
	qsort(v, tb->nr_rows, sizeof(*v), kent_cmp);
	size_t *nth = pp_xcalloc(tb->nr_rows + 1, sizeof(*nth));

	for (size_t i = 1, n = 1; i < tb->nr_rows; i++) {
		n = strcmp(v[i].key, v[i - 1].key) ? 1 : n + 1;
		nth[v[i].row] = n;
	}
	for (size_t r = 0; r < tb->nr_rows; r++) {
		if (nth[r] < 2)
			continue;
		char *k = pp_xasprintf("%s%s#%zu", out[r].key, *out[r].key ? " " : "", nth[r]);

		free(out[r].key);
		out[r].key = k;
	}
	free(nth);
	free(v);
}

static void row_score(struct ana_dtdiff *t, struct ana_drow *r, const char *sort)
{
	bool differ = false;

	r->change = 0;
	r->sort = 0;
	for (size_t k = 0; k < t->nr_cols; k++) {
		const struct ana_dcol *c = &t->cols[k];
		double b, a, ch;

		if (!c->is_value)
			continue;
		bool hb = ana_dvalue(t, r, c, 0, &b), ha = ana_dvalue(t, r, c, 1, &a);

		if (!hb && !ha)
			continue;
		differ |= a != b;
		ch = a == b ? 0 : b != 0 ? fabs(a - b) / fabs(b) : INFINITY;
		if (ch > r->change)
			r->change = ch;
		if (sort && !strcmp(c->name, sort))
			r->sort = fabs(a - b);
	}
	if (r->row[0] == SIZE_MAX || r->row[1] == SIZE_MAX) {
		r->status = r->row[0] == SIZE_MAX ? ANA_DROW_NEW : ANA_DROW_GONE;
		r->change = INFINITY;
	} else {
		r->status = differ ? ANA_DROW_CHANGED : ANA_DROW_SAME;
	}
	if (!sort)
		r->sort = r->change;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ana_drow *x = a, *y = b;

	if (x->sort != y->sort)
		return x->sort > y->sort ? -1 : 1;
	/* ties: the before report's order, then the after report's */
	if (x->row[0] != y->row[0])
		return x->row[0] < y->row[0] ? -1 : 1;
	return x->row[1] < y->row[1] ? -1 : x->row[1] > y->row[1];
}

static void match(struct ana_dtdiff *t, const char *sort)
{
	size_t nb = t->side[0] ? t->side[0]->nr_rows : 0, na = t->side[1] ? t->side[1]->nr_rows : 0;
	struct kent *k = pp_xmalloc((nb + na + 1) * sizeof(*k));

	if (nb)
		side_keys(t, 0, k);
	if (na)
		side_keys(t, 1, k + nb);
	qsort(k, nb + na, sizeof(*k), kent_cmp);
	t->rows = pp_xcalloc(nb + na + 1, sizeof(*t->rows));
	for (size_t i = 0; i < nb + na; i++) {
		struct ana_drow *r = &t->rows[t->nr_rows++];

		r->key = k[i].key;
		r->row[0] = r->row[1] = SIZE_MAX;
		r->row[k[i].side] = k[i].row;
		if (i + 1 < nb + na && !strcmp(k[i].key, k[i + 1].key)) {
			/* the same key on both sides: sorted before first */
			r->row[1] = k[i + 1].row;
			free(k[i + 1].key);
			i++;
		}
		row_score(t, r, sort);
		t->nr[r->status]++;
	}
	free(k);
	qsort(t->rows, t->nr_rows, sizeof(*t->rows), row_cmp);
}

static bool any_col(const struct ana_dreport *const *rep, const char *name)
{
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < rep[s]->nr; i++)
			for (size_t c = 0; c < rep[s]->t[i].nr_cols; c++)
				if (!strcmp(rep[s]->t[i].cols[c], name))
					return true;
	return false;
}

/* Every name of @list is a column of some table. */
static int check_list(const struct ana_dreport *const *rep, const char *opt, const char *list,
		      char *err, size_t errsz)
{
	for (const char *s = list; s && *s;) {
		size_t l = strcspn(s, ",");
		char *name = pp_xstrndup(s, l);
		bool ok = l && any_col(rep, name);

		if (!ok)
			snprintf(err, errsz, "%s: no table of either report has a column '%s'", opt,
				 name);
		free(name);
		if (!ok)
			return PP_EUSAGE;
		s += l + (s[l] == ',');
	}
	return 0;
}

static bool table_has_key(const struct ana_dtdiff *t, const char *keys)
{
	for (int s = 0; s < 2; s++)
		for (size_t c = 0; t->side[s] && c < t->side[s]->nr_cols; c++)
			if (in_list(keys, t->side[s]->cols[c]))
				return true;
	return false;
}

int ana_diff_compute(struct ana_diff *d, const struct ana_dreport *before,
		     const struct ana_dreport *after, const struct ana_diff_opts *o, char *err,
		     size_t errsz)
{
	const struct ana_dreport *rep[2] = { before, after };
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = check_list(rep, "--key", o->keys, err, errsz)) ||
	    (rc = check_list(rep, "--sort", o->sort, err, errsz)) ||
	    (rc = check_list(rep, "--columns", o->columns, err, errsz)))
		return rc;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < rep[s]->nr; i++) {
			const char *name = rep[s]->t[i].name;
			struct ana_dtdiff *t;

			if (s && ana_dreport_find(before, name))
				continue;	/* compared with the before side's */
			d->t = pp_xrealloc(d->t, (d->nr + 1) * sizeof(*d->t));
			t = memset(&d->t[d->nr++], 0, sizeof(*d->t));
			t->name = name;
			t->side[0] = ana_dreport_find(before, name);
			t->side[1] = ana_dreport_find(after, name);
			make_cols(t, o, o->keys && table_has_key(t, o->keys));
			match(t, o->sort);
		}
	return 0;
}

void ana_diff_release(struct ana_diff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		struct ana_dtdiff *t = &d->t[i];

		for (size_t k = 0; k < t->nr_cols; k++)
			free(t->cols[k].name);
		free(t->cols);
		for (size_t r = 0; r < t->nr_rows; r++)
			free(t->rows[r].key);
		free(t->rows);
	}
	free(d->t);
	memset(d, 0, sizeof(*d));
}
