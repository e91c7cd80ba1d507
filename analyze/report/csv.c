/* SPDX-License-Identifier: MIT */
/*
 * csv.c - reading back the CSV a child analyzer wrote (RFC 4180: fields with a comma,
 * a quote or a line break are quoted, a quote inside doubled, as common/table.c
 * writes them).  The first line is the header; an analyzer given -i repeats it
 * before each interval's table, and only the last table is kept.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/log.h"
#include "common/vec.h"

/* One field at *@p (up to @end); *@p moves past it and its separator.  Return: owned. */
static char *field(const char **p, const char *end, bool *eol)
{
	struct pp_buf b = PP_BUF_INIT;
	const char *s = *p;

	pp_buf_adds(&b, "");
	if (s < end && *s == '"') {
		for (s++; s < end; s++) {
			if (*s == '"' && s + 1 < end && s[1] == '"')
				pp_buf_addch(&b, *s++);
			else if (*s == '"')
				break;
			else
				pp_buf_addch(&b, *s);
		}
		if (s < end)
			s++;	/* the closing quote */
	}
	while (s < end && *s != ',' && *s != '\n')
		pp_buf_addch(&b, *s++);
	if (b.len && b.data[b.len - 1] == '\r')
		b.data[--b.len] = '\0';
	*eol = s >= end || *s == '\n';
	*p = s < end ? s + 1 : s;
	return pp_buf_detach(&b);
}

/* One record into @v (@nr fields); Return: false at the end of the text. */
static bool record(const char **p, const char *end, char ***v, size_t *nr, size_t *cap)
{
	bool eol = false;

	*nr = 0;
	if (*p >= end)
		return false;
	while (!eol)
		PP_VEC_PUSH(*v, *nr, *cap, field(p, end, &eol));
	return true;
}

static void free_fields(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
}

static bool same_fields(char **a, char **b, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

void rpt_csv_parse(const char *text, size_t len, struct rpt_csv *t)
{
	const char *p = text, *end = text + len;
	char **v = NULL;
	size_t nr = 0, cap = 0;

	memset(t, 0, sizeof(*t));
	if (!text || !record(&p, end, &t->cols, &t->nr_cols, &cap))
		return;
	cap = 0;
	while (record(&p, end, &v, &nr, &cap)) {
		if (nr == 1 && !*v[0]) {	/* an empty line */
			free_fields(v, nr);
			continue;
		}
		if (nr == t->nr_cols && same_fields(v, t->cols, nr)) {	/* the next table */
			free_fields(t->cells, t->nr_cells);
			t->nr_cells = 0;
			t->nr_rows = 0;
			free_fields(v, nr);
			continue;
		}
		for (size_t i = 0; i < t->nr_cols; i++)
			PP_VEC_PUSH(t->cells, t->nr_cells, t->cap_cells, i < nr ? v[i] : pp_xstrdup(""));
		for (size_t i = t->nr_cols; i < nr; i++)
			free(v[i]);
		t->nr_rows++;
	}
	free(v);
}

void rpt_csv_header(struct rpt_csv *t, const char *const *cols)
{
	memset(t, 0, sizeof(*t));
	while (cols[t->nr_cols])
		t->nr_cols++;
	t->cols = pp_xcalloc(t->nr_cols, sizeof(*t->cols));
	for (size_t i = 0; i < t->nr_cols; i++)
		t->cols[i] = pp_xstrdup(cols[i]);
}

void rpt_csv_addf(struct rpt_csv *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		pp_die("out of memory");
	va_end(ap);
	PP_VEC_PUSH(t->cells, t->nr_cells, t->cap_cells, s);
	t->nr_rows = t->nr_cells / t->nr_cols;
}

void rpt_csv_release(struct rpt_csv *t)
{
	free_fields(t->cols, t->nr_cols);
	free(t->cols);
	free_fields(t->cells, t->nr_cells);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
