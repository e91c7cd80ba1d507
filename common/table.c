/* SPDX-License-Identifier: MIT */
/*
 * table.c - aligned text, JSON and CSV from one table; see table.h.
 *
 * Cells are stored as text plus a flag saying whether they are numbers, so
 * JSON can print them unquoted; a table is small (a report), so simplicity
 * beats cleverness here.  Text cells are quoted (quote.h) before they are
 * measured: a comm holding ESC prints as \x1b and its column is that wide.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/table.h"

struct cell {
	char *text;
	int is_num;
};

struct col {
	char *title, *key;
	unsigned flags;
	int width;
};

struct pp_table {
	struct col *cols;
	size_t nr_cols;
	struct cell *cells;	/* row-major, nr_rows * nr_cols */
	size_t nr_rows, cur;	/* cur: cells filled in the last row */
	size_t cap_cells;
};

struct pp_table *pp_table_new(void)
{
	return pp_xcalloc(1, sizeof(struct pp_table));
}

void pp_table_reset(struct pp_table *t)
{
	for (size_t i = 0; i < t->nr_rows * t->nr_cols; i++)
		free(t->cells[i].text);
	t->nr_rows = 0;
	t->cur = 0;
}

void pp_table_free(struct pp_table *t)
{
	if (!t)
		return;
	pp_table_reset(t);
	for (size_t i = 0; i < t->nr_cols; i++) {
		free(t->cols[i].title);
		free(t->cols[i].key);
	}
	free(t->cols);
	free(t->cells);
	free(t);
}

void pp_table_col(struct pp_table *t, const char *title, const char *key, unsigned flags, int width)
{
	PP_BUG_ON(t->nr_rows);
	t->cols = pp_xrealloc(t->cols, (t->nr_cols + 1) * sizeof(*t->cols));
	t->cols[t->nr_cols++] = (struct col){ pp_xstrdup(title), pp_xstrdup(key ? key : title), flags,
					      width };
}

size_t pp_table_nr_rows(const struct pp_table *t)
{
	return t->nr_rows;
}

void pp_table_row(struct pp_table *t)
{
	/* pad an unfinished previous row */
	while (t->nr_rows && t->cur < t->nr_cols)
		pp_table_str(t, "");
	size_t need = (t->nr_rows + 1) * t->nr_cols;
	if (need > t->cap_cells) {
		t->cap_cells = need * 2;
		t->cells = pp_xrealloc(t->cells, t->cap_cells * sizeof(*t->cells));
	}
	memset(&t->cells[t->nr_rows * t->nr_cols], 0, t->nr_cols * sizeof(*t->cells));
	t->nr_rows++;
	t->cur = 0;
}

static void put(struct pp_table *t, char *text, int is_num)
{
	if (!t->nr_rows || t->cur >= t->nr_cols) {
		free(text);	/* more cells than columns: a bug in the caller, keep going */
		return;
	}
	struct cell *c = &t->cells[(t->nr_rows - 1) * t->nr_cols + t->cur++];
	c->text = text;
	c->is_num = is_num;
}

void pp_table_str(struct pp_table *t, const char *s)
{
	put(t, pp_xstrdup(s ? s : ""), 0);
}

void pp_table_strf(struct pp_table *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put(t, pp_xvasprintf(fmt, ap), 0);
	va_end(ap);
}

void pp_table_u64(struct pp_table *t, uint64_t v)
{
	put(t, pp_xasprintf("%llu", (unsigned long long)v), 1);
}

void pp_table_i64(struct pp_table *t, int64_t v)
{
	put(t, pp_xasprintf("%lld", (long long)v), 1);
}

void pp_table_num(struct pp_table *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put(t, pp_xvasprintf(fmt, ap), 1);
	va_end(ap);
}

static const char *cell_text(const struct pp_table *t, size_t r, size_t c)
{
	const char *s = t->cells[r * t->nr_cols + c].text;

	return s ? s : "";
}

/* One aligned cell; the last column of a row gets no padding after a left-aligned text. */
static void put_text(FILE *fp, const char *s, int w, unsigned flags, bool last)
{
	if ((flags & PP_COL_LEFT) && last)
		fputs(s, fp);
	else if (flags & PP_COL_LEFT)
		fprintf(fp, "%-*s ", w, s);
	else
		fprintf(fp, last ? "%*s" : "%*s ", w, s);
}

/* The cells as text fields: q[r * nr_cols + c] an escaped copy, or NULL when the cell is safe. */
static char **quote_cells(const struct pp_table *t)
{
	char **q = NULL;
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < t->nr_rows * t->nr_cols; i++) {
		const char *s = t->cells[i].text;
		if (!s || t->cells[i].is_num || !pp_quote_needed(s))
			continue;
		if (!q)
			q = pp_xcalloc(t->nr_rows * t->nr_cols, sizeof(*q));
		pp_buf_add_quoted(&b, s, strlen(s), PP_QUOTE_FIELD);
		q[i] = pp_buf_detach(&b);
	}
	return q;
}

static void print_text(const struct pp_table *t, FILE *fp)
{
	int *w = pp_xcalloc(t->nr_cols, sizeof(int));
	char **q = quote_cells(t);
#define TEXT(r, c) (q && q[(r) * t->nr_cols + (c)] ? q[(r) * t->nr_cols + (c)] : cell_text(t, r, c))

	for (size_t c = 0; c < t->nr_cols; c++) {
		w[c] = (int)strlen(t->cols[c].title);
		if (w[c] < t->cols[c].width)
			w[c] = t->cols[c].width;
		for (size_t r = 0; r < t->nr_rows; r++) {
			int l = (int)strlen(TEXT(r, c));
			if (l > w[c])
				w[c] = l;
		}
	}
	for (size_t c = 0; c < t->nr_cols; c++)
		put_text(fp, t->cols[c].title, w[c], t->cols[c].flags, c + 1 == t->nr_cols);
	fputc('\n', fp);
	for (size_t c = 0; c < t->nr_cols; c++) {
		for (int i = 0; i < w[c]; i++)
			fputc((t->cols[c].flags & PP_COL_NORULE) ? ' ' : '-', fp);
		if (c + 1 < t->nr_cols)
			fputc(' ', fp);
	}
	fputc('\n', fp);
	for (size_t r = 0; r < t->nr_rows; r++) {
		for (size_t c = 0; c < t->nr_cols; c++)
			put_text(fp, TEXT(r, c), w[c], t->cols[c].flags, c + 1 == t->nr_cols);
		fputc('\n', fp);
	}
#undef TEXT
	for (size_t i = 0; q && i < t->nr_rows * t->nr_cols; i++)
		free(q[i]);
	free(q);
	free(w);
}

static void print_json(const struct pp_table *t, FILE *fp, const char *name)
{
	struct pp_buf b = PP_BUF_INIT;

	if (name) {
		pp_buf_addch(&b, '{');
		pp_buf_add_json_str(&b, name);
		pp_buf_addch(&b, ':');
	}
	pp_buf_addch(&b, '[');
	for (size_t r = 0; r < t->nr_rows; r++) {
		pp_buf_adds(&b, r ? ",{" : "{");
		for (size_t c = 0; c < t->nr_cols; c++) {
			const struct cell *cl = &t->cells[r * t->nr_cols + c];
			if (c)
				pp_buf_addch(&b, ',');
			pp_buf_add_json_str(&b, t->cols[c].key);
			pp_buf_addch(&b, ':');
			if (cl->is_num && cl->text && *cl->text)
				pp_buf_adds(&b, cl->text);
			else
				pp_buf_add_json_str(&b, cl->text ? cl->text : "");
		}
		pp_buf_addch(&b, '}');
	}
	pp_buf_addch(&b, ']');
	if (name)
		pp_buf_addch(&b, '}');
	pp_buf_addch(&b, '\n');
	fputs(pp_buf_str(&b), fp);
	pp_buf_release(&b);
}

static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void print_csv(const struct pp_table *t, FILE *fp)
{
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			fputc(',', fp);
		csv_field(fp, t->cols[c].key);
	}
	fputc('\n', fp);
	for (size_t r = 0; r < t->nr_rows; r++) {
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (c)
				fputc(',', fp);
			csv_field(fp, cell_text(t, r, c));
		}
		fputc('\n', fp);
	}
}

void pp_table_print(const struct pp_table *t, FILE *fp, enum pp_table_format f, const char *name)
{
	switch (f) {
	case PP_TABLE_TEXT: print_text(t, fp); break;
	case PP_TABLE_JSON: print_json(t, fp, name); break;
	case PP_TABLE_CSV: print_csv(t, fp); break;
	}
}
