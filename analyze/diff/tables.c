/* SPDX-License-Identifier: MIT */
/*
 * diff/tables.c - the tables of a report, from its `--format json` text.
 *
 * What common/table.c prints ({"name":[{col:cell,...},...]} or a bare array)
 * and what analyzers wrap around it (top: {"time":..,"events":..,"rows":[..]})
 * both come out as named tables.  The cells point into the parsed documents,
 * which the report keeps.  See diff.h for the naming rules.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "common/err.h"
#include "common/json.h"
#include "common/log.h"

static int col_index(struct ana_dtable *t, const char *name, bool add)
{
	for (size_t i = 0; i < t->nr_cols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	if (!add)
		return -1;
	/* a new column: widen every row already there */
	struct ana_dcell *c = pp_xcalloc(t->nr_rows * (t->nr_cols + 1) + 1, sizeof(*c));

	for (size_t r = 0; r < t->nr_rows; r++)
		memcpy(&c[r * (t->nr_cols + 1)], &t->cells[r * t->nr_cols],
		       t->nr_cols * sizeof(*c));
	free(t->cells);
	t->cells = c;
	t->cols = pp_xrealloc(t->cols, (t->nr_cols + 1) * sizeof(*t->cols));
	t->cols[t->nr_cols] = pp_xstrdup(name);
	return (int)t->nr_cols++;
}

static void table_release(struct ana_dtable *t)
{
	for (size_t i = 0; i < t->nr_cols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

/* A fresh table called @name: an earlier one of that name is emptied and reused. */
static struct ana_dtable *table_new(struct ana_dreport *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!strcmp(r->t[i].name, name)) {
			table_release(&r->t[i]);
			r->t[i].name = pp_xstrdup(name);
			return &r->t[i];
		}
	r->t = pp_xrealloc(r->t, (r->nr + 1) * sizeof(*r->t));
	memset(&r->t[r->nr], 0, sizeof(*r->t));
	r->t[r->nr].name = pp_xstrdup(name);
	return &r->t[r->nr++];
}

static void cell_set(struct ana_dcell *c, const struct pp_json *v)
{
	switch (v->type) {
	case PP_JSON_NUM:
		c->text = v->str;
		c->num = v->num;
		c->is_num = true;
		break;
	case PP_JSON_STR:
		c->text = v->str;
		break;
	case PP_JSON_BOOL:
		c->text = v->b ? "true" : "false";
		break;
	default:
		c->text = "";	/* null */
		break;
	}
}

/* One row of a table: an object's scalar members. */
static void row_add(struct ana_dtable *t, const struct pp_json *o)
{
	size_t row = t->nr_rows;

	t->cells = pp_xrealloc(t->cells, (row + 1) * t->nr_cols * sizeof(*t->cells) + 1);
	memset(&t->cells[row * t->nr_cols], 0, t->nr_cols * sizeof(*t->cells));
	t->nr_rows++;
	for (size_t i = 0; i < o->nr; i++) {
		if (!pp_json_is_scalar(o->v[i]))
			continue;
		int c = col_index(t, o->keys[i], true);

		cell_set(&t->cells[row * t->nr_cols + (size_t)c], o->v[i]);
	}
}

static bool is_table(const struct pp_json *j)
{
	if (j->type != PP_JSON_ARR)
		return false;
	for (size_t i = 0; i < j->nr; i++)
		if (j->v[i]->type != PP_JSON_OBJ)
			return false;
	return true;
}

static char *path_join(const char *parent, const char *key)
{
	return parent ? pp_xasprintf("%s.%s", parent, key) : pp_xstrdup(key);
}

/*
 * The tables in @j: an array of objects is one, named @name; an object's
 * numbers and strings make one row named @name (the root's: @root), its
 * arrays and objects are looked into, named by their member.
 */
static void walk(struct ana_dreport *r, const struct pp_json *j, const char *name,
		 const char *root, int depth)
{
	if (depth > 8)
		return;
	if (is_table(j)) {
		struct ana_dtable *t = table_new(r, name ? name : root);

		for (size_t i = 0; i < j->nr; i++)
			row_add(t, j->v[i]);
		return;
	}
	if (j->type != PP_JSON_OBJ)
		return;
	bool numbers = false;

	for (size_t i = 0; i < j->nr; i++)
		numbers |= j->v[i]->type == PP_JSON_NUM;
	if (numbers)
		row_add(table_new(r, name ? name : root), j);
	for (size_t i = 0; i < j->nr; i++) {
		if (pp_json_is_scalar(j->v[i]))
			continue;
		char *sub = path_join(name, j->keys[i]);

		walk(r, j->v[i], sub, root, depth + 1);
		free(sub);
	}
}

int ana_dreport_parse(struct ana_dreport *r, const char *text, size_t len, const char *root,
		      char *err, size_t errsz)
{
	size_t pos = 0;

	memset(r, 0, sizeof(*r));
	while (pos < len && strchr(" \t\r\n", text[pos]))
		pos++;
	while (pos < len) {
		struct pp_json *doc;
		size_t used;
		int rc = pp_json_parse(text + pos, len - pos, &used, &doc, err, errsz);

		if (rc) {
			ana_dreport_release(r);
			return rc;
		}
		r->docs = pp_xrealloc(r->docs, (r->nr_docs + 1) * sizeof(*r->docs));
		r->docs[r->nr_docs++] = doc;
		walk(r, doc, NULL, root, 0);
		pos += used;
	}
	return 0;
}

void ana_dreport_release(struct ana_dreport *r)
{
	for (size_t i = 0; i < r->nr; i++)
		table_release(&r->t[i]);
	free(r->t);
	for (size_t i = 0; i < r->nr_docs; i++)
		pp_json_free(r->docs[i]);
	free(r->docs);
	memset(r, 0, sizeof(*r));
}

const struct ana_dtable *ana_dreport_find(const struct ana_dreport *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!strcmp(r->t[i].name, name))
			return &r->t[i];
	return NULL;
}
