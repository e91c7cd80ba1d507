/* SPDX-License-Identifier: MIT */
/*
 * csv.c - reading back the CSV a child analyzer wrote (RFC 4180: fields with a comma,
 * a quote or a line break are quoted, a quote inside doubled, as common/table.c
 * writes them).  The first line is a header.  An analyzer given -i repeats it
 * before each interval's table; some write a second table after the first
 * (profile: symbols, then processes), its header a line of names where numbers
 * were.  The caller picks a table by its first column; the last one so named wins.
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

/*
 * Whether @v (@nr fields) starts another table: the header again (an -i interval's
 * table), or a line of names, none a number, with text in a column that was a number
 * in every row so far (profile's processes after its symbols).
 */
static bool is_header(char **v, size_t nr, char **cols, size_t nr_cols, const bool *numeric,
		      size_t nr_rows)
{
	bool text_in_numbers = false;
	double d;

	if (nr == nr_cols && same_fields(v, cols, nr))
		return true;
	for (size_t i = 0; i < nr; i++) {
		if (!*v[i] || rpt_number(v[i], &d))
			return false;
		if (i < nr_cols && nr_rows && numeric[i])
			text_in_numbers = true;
	}
	return text_in_numbers;
}

static void take_header(struct rpt_csv *t, char **v, size_t nr)
{
	rpt_csv_release(t);
	t->cols = pp_xcalloc(nr, sizeof(*t->cols));
	for (size_t i = 0; i < nr; i++)
		t->cols[i] = pp_xstrdup(v[i]);
	t->nr_cols = nr;
}

void rpt_csv_parse(const char *text, size_t len, const char *first_col, struct rpt_csv *t)
{
	const char *p = text, *end = text + len;
	char **v = NULL, **cols = NULL, *wanted;
	size_t nr = 0, cap = 0, nr_cols = 0, cap_cols = 0, nr_rows = 0;
	bool *numeric = NULL, want;
	double d;

	memset(t, 0, sizeof(*t));
	if (!text || !record(&p, end, &cols, &nr_cols, &cap_cols))
		return;
	numeric = pp_xcalloc(nr_cols + 1, sizeof(*numeric));
	wanted = pp_xstrdup(first_col ? first_col : cols[0]);
	want = !strcmp(cols[0], wanted);
	if (want)
		take_header(t, cols, nr_cols);
	while (record(&p, end, &v, &nr, &cap)) {
		if (nr == 1 && !*v[0]) {	/* an empty line */
			free_fields(v, nr);
			continue;
		}
		if (is_header(v, nr, cols, nr_cols, numeric, nr_rows)) {
			free_fields(cols, nr_cols);
			free(cols);
			cols = v;
			nr_cols = nr;
			v = NULL;
			cap = 0;
			nr_rows = 0;
			free(numeric);
			numeric = pp_xcalloc(nr_cols + 1, sizeof(*numeric));
			want = !strcmp(cols[0], wanted);
			if (want)
				take_header(t, cols, nr_cols);
			continue;
		}
		for (size_t i = 0; i < nr_cols; i++) {
			bool num = i < nr && rpt_number(v[i], &d);

			numeric[i] = nr_rows ? numeric[i] && num : num;
		}
		nr_rows++;
		if (want) {
			for (size_t i = 0; i < t->nr_cols; i++)
				PP_VEC_PUSH(t->cells, t->nr_cells, t->cap_cells,
					    pp_xstrdup(i < nr ? v[i] : ""));
			t->nr_rows++;
		}
		free_fields(v, nr);
	}
	free_fields(cols, nr_cols);
	free(cols);
	free(v);
	free(numeric);
	free(wanted);
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
	s = pp_xvasprintf(fmt, ap);
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
