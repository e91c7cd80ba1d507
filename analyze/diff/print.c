/* SPDX-License-Identifier: MIT */
/*
 * diff/print.c - a comparison as text, JSON or CSV.
 *
 * Text puts both reports side by side, one row per key that changed (all of
 * them with --all), for each value column "before.NAME NAME delta.NAME" -
 * the names --fail-if uses - after the key columns, the status and the
 * change.  JSON holds every key with its before, after and delta objects;
 * CSV is long: one line per key and value column, the same for every table.
 * Numbers are printed as the analyzer printed them; a delta with as many
 * decimals as the more precise side.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/table.h"

static const char *const status_names[] = { "same", "changed", "new", "gone" };

static void add_change(struct pp_buf *b, const struct ana_drow *r)
{
	if (r->status == ANA_DROW_NEW || r->status == ANA_DROW_GONE)
		pp_buf_adds(b, status_names[r->status]);
	else if (isinf(r->change))
		pp_buf_adds(b, "inf");
	else
		pp_buf_addf(b, "%.1f%%", r->change * 100);
}

static void delta_str(struct pp_buf *b, const struct ana_dtdiff *t, const struct ana_drow *r,
		      const struct ana_dcol *c, bool sign)
{
	double x, y;

	ana_dvalue(t, r, c, 0, &x);
	ana_dvalue(t, r, c, 1, &y);
	pp_buf_addf(b, sign && y != x ? "%+.*f" : "%.*f", c->decimals, y - x);
}

static const char *cell_text(const struct ana_dtdiff *t, const struct ana_drow *r,
			     const struct ana_dcol *c, int side)
{
	const struct ana_dcell *cl = ana_dcell_of(t, r, c, side);

	return cl ? cl->text : NULL;
}

/* A key column's text: from the side that has the row. */
static const char *key_text(const struct ana_dtdiff *t, const struct ana_drow *r,
			    const struct ana_dcol *c)
{
	const char *s = cell_text(t, r, c, r->row[0] != SIZE_MAX ? 0 : 1);

	return s ? s : "";
}

static void text_table(const struct ana_dtdiff *t, const struct ana_diff_head *h, bool gate,
		       FILE *fp)
{
	struct pp_table *tb = pp_table_new();
	struct pp_buf b = PP_BUF_INIT;
	size_t shown = 0;

	fprintf(fp, "%s: %zu keys: %zu changed, %zu new, %zu gone, %zu the same%s\n", t->name,
		t->nr_rows, t->nr[ANA_DROW_CHANGED], t->nr[ANA_DROW_NEW], t->nr[ANA_DROW_GONE],
		t->nr[ANA_DROW_SAME], !t->side[0] ? " (a table of the after report only)" :
		!t->side[1] ? " (a table of the before report only)" : "");
	for (size_t k = 0; k < t->nr_cols; k++)
		if (t->cols[k].is_key)
			pp_table_col(tb, t->cols[k].name, NULL, PP_COL_LEFT, 0);
	if (gate)
		pp_table_col(tb, "fail", NULL, PP_COL_LEFT, 0);
	pp_table_col(tb, "change", NULL, 0, 0);
	for (size_t k = 0; k < t->nr_cols; k++) {
		const char *n = t->cols[k].name;

		if (!t->cols[k].is_value)
			continue;
		pp_buf_reset(&b);
		pp_buf_addf(&b, "before.%s", n);
		pp_table_col(tb, pp_buf_str(&b), NULL, 0, 0);
		pp_table_col(tb, n, NULL, 0, 0);
		pp_buf_reset(&b);
		pp_buf_addf(&b, "delta.%s", n);
		pp_table_col(tb, pp_buf_str(&b), NULL, 0, 0);
	}
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct ana_drow *r = &t->rows[i];

		if (r->status == ANA_DROW_SAME && !h->all)
			continue;
		if (h->limit && shown == h->limit)
			break;
		shown++;
		pp_table_row(tb);
		for (size_t k = 0; k < t->nr_cols; k++)
			if (t->cols[k].is_key)
				pp_table_str(tb, key_text(t, r, &t->cols[k]));
		if (gate)
			pp_table_str(tb, r->tripped ? "*" : "");
		pp_buf_reset(&b);
		add_change(&b, r);
		pp_table_str(tb, pp_buf_str(&b));
		for (size_t k = 0; k < t->nr_cols; k++) {
			const struct ana_dcol *c = &t->cols[k];
			const char *x, *y;

			if (!c->is_value)
				continue;
			x = cell_text(t, r, c, 0);
			y = cell_text(t, r, c, 1);
			pp_table_num(tb, "%s", x ? x : "-");
			pp_table_num(tb, "%s", y ? y : "-");
			pp_buf_reset(&b);
			delta_str(&b, t, r, c, true);
			pp_table_num(tb, "%s", pp_buf_str(&b));
		}
	}
	if (shown)
		pp_table_print(tb, fp, PP_TABLE_TEXT, NULL);
	if (shown < t->nr_rows - (h->all ? 0 : t->nr[ANA_DROW_SAME]))
		fprintf(fp, "(%zu more; --limit 0 shows them)\n",
			t->nr_rows - (h->all ? 0 : t->nr[ANA_DROW_SAME]) - shown);
	pp_table_free(tb);
	pp_buf_release(&b);
}

static void json_cell(struct pp_buf *b, const struct ana_dcell *cl)
{
	if (!cl)
		pp_buf_adds(b, "null");
	else if (cl->is_num)
		pp_buf_adds(b, cl->text);
	else
		pp_buf_add_json_str(b, cl->text);
}

/* The name of the next member of a JSON object, after a comma unless *@first. */
static void json_member(struct pp_buf *b, bool *first, const char *name)
{
	if (!*first)
		pp_buf_addch(b, ',');
	*first = false;
	pp_buf_add_json_str(b, name);
	pp_buf_addch(b, ':');
}

/* "before":{...}, "after":{...} or "delta":{...} (@side 2) of the value columns. */
static void json_values(struct pp_buf *b, const struct ana_dtdiff *t, const struct ana_drow *r,
			int side)
{
	bool first = true;

	pp_buf_addch(b, '{');
	for (size_t k = 0; k < t->nr_cols; k++) {
		const struct ana_dcol *c = &t->cols[k];

		if (!c->is_value)
			continue;
		json_member(b, &first, c->name);
		if (side < 2)
			json_cell(b, ana_dcell_of(t, r, c, side));
		else
			delta_str(b, t, r, c, false);
	}
	pp_buf_addch(b, '}');
}

static void json_names(struct pp_buf *b, const struct ana_dtdiff *t, bool keys)
{
	bool first = true;

	pp_buf_addch(b, '[');
	for (size_t k = 0; k < t->nr_cols; k++) {
		if (keys ? !t->cols[k].is_key : !t->cols[k].is_value)
			continue;
		if (!first)
			pp_buf_addch(b, ',');
		first = false;
		pp_buf_add_json_str(b, t->cols[k].name);
	}
	pp_buf_addch(b, ']');
}

static void json_row(struct pp_buf *b, const struct ana_dtdiff *t, const struct ana_drow *r)
{
	bool first = true;

	pp_buf_adds(b, "{\"key\":");
	pp_buf_add_json_str(b, r->key);
	pp_buf_adds(b, ",\"keys\":{");
	for (size_t k = 0; k < t->nr_cols; k++) {
		const struct ana_dcol *c = &t->cols[k];

		if (!c->is_key)
			continue;
		json_member(b, &first, c->name);
		json_cell(b, ana_dcell_of(t, r, c, r->row[0] != SIZE_MAX ? 0 : 1));
	}
	pp_buf_addf(b, "},\"status\":\"%s\",\"change\":", status_names[r->status]);
	if (isinf(r->change))
		pp_buf_adds(b, "null");
	else
		pp_buf_addf(b, "%.6g", r->change);
	pp_buf_addf(b, ",\"tripped\":%s,\"before\":", r->tripped ? "true" : "false");
	json_values(b, t, r, 0);
	pp_buf_adds(b, ",\"after\":");
	json_values(b, t, r, 1);
	pp_buf_adds(b, ",\"delta\":");
	json_values(b, t, r, 2);
	pp_buf_addch(b, '}');
}

static void print_json(const struct ana_diff *d, const struct ana_diff_head *h, FILE *fp)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_adds(&b, "{\"analyzer\":");
	pp_buf_add_json_str(&b, h->analyzer ? h->analyzer : "");
	pp_buf_adds(&b, ",\"before\":");
	pp_buf_add_json_str(&b, h->before);
	pp_buf_adds(&b, ",\"after\":");
	pp_buf_add_json_str(&b, h->after);
	pp_buf_adds(&b, ",\"fail_if\":");
	if (h->fail_if)
		pp_buf_add_json_str(&b, h->fail_if);
	else
		pp_buf_adds(&b, "null");
	pp_buf_addf(&b, ",\"tripped\":%zu,\"tables\":[", d->nr_tripped);
	for (size_t i = 0; i < d->nr; i++) {
		const struct ana_dtdiff *t = &d->t[i];

		pp_buf_adds(&b, i ? ",{\"name\":" : "{\"name\":");
		pp_buf_add_json_str(&b, t->name);
		pp_buf_adds(&b, ",\"keys\":");
		json_names(&b, t, true);
		pp_buf_adds(&b, ",\"values\":");
		json_names(&b, t, false);
		pp_buf_addf(&b, ",\"same\":%zu,\"changed\":%zu,\"new\":%zu,\"gone\":%zu,\"rows\":[",
			    t->nr[ANA_DROW_SAME], t->nr[ANA_DROW_CHANGED], t->nr[ANA_DROW_NEW],
			    t->nr[ANA_DROW_GONE]);
		for (size_t r = 0; r < t->nr_rows; r++) {
			if (r)
				pp_buf_addch(&b, ',');
			json_row(&b, t, &t->rows[r]);
		}
		pp_buf_adds(&b, "]}");
	}
	pp_buf_adds(&b, "]}\n");
	fputs(pp_buf_str(&b), fp);
	pp_buf_release(&b);
}

static void print_csv(const struct ana_diff *d, FILE *fp)
{
	struct pp_table *tb = pp_table_new();
	struct pp_buf b = PP_BUF_INIT;
	static const char *const cols[] = { "table", "key", "status", "change", "tripped",
					    "column", "before", "after", "delta" };

	for (size_t i = 0; i < PP_ARRAY_SIZE(cols); i++)
		pp_table_col(tb, cols[i], NULL, 0, 0);
	for (size_t i = 0; i < d->nr; i++) {
		const struct ana_dtdiff *t = &d->t[i];

		for (size_t r = 0; r < t->nr_rows; r++) {
			const struct ana_drow *row = &t->rows[r];

			for (size_t k = 0; k < t->nr_cols; k++) {
				const struct ana_dcol *c = &t->cols[k];
				const char *x = cell_text(t, row, c, 0), *y = cell_text(t, row, c, 1);

				if (!c->is_value)
					continue;
				pp_table_row(tb);
				pp_table_str(tb, t->name);
				pp_table_str(tb, row->key);
				pp_table_str(tb, status_names[row->status]);
				if (isinf(row->change))
					pp_table_str(tb, "");
				else
					pp_table_num(tb, "%.6g", row->change);
				pp_table_str(tb, row->tripped ? "1" : "0");
				pp_table_str(tb, c->name);
				pp_table_str(tb, x ? x : "");
				pp_table_str(tb, y ? y : "");
				pp_buf_reset(&b);
				delta_str(&b, t, row, c, false);
				pp_table_str(tb, pp_buf_str(&b));
			}
		}
	}
	pp_table_print(tb, fp, PP_TABLE_CSV, NULL);
	pp_table_free(tb);
	pp_buf_release(&b);
}

void ana_diff_print(const struct ana_diff *d, const struct ana_diff_head *h,
		    enum ana_diff_format f, FILE *fp)
{
	bool gate = h->fail_if != NULL;

	if (f == ANA_DIFF_JSON) {
		print_json(d, h, fp);
		return;
	}
	if (f == ANA_DIFF_CSV) {
		print_csv(d, fp);
		return;
	}
	fprintf(fp, "%s: before %s, after %s\n", h->analyzer ? h->analyzer : "diff", h->before,
		h->after);
	for (size_t i = 0; i < d->nr; i++) {
		fputc('\n', fp);
		text_table(&d->t[i], h, gate && d->t[i].gated, fp);
	}
	if (gate)
		fprintf(fp, "\nfail-if '%s': %zu key%s tripped\n", h->fail_if, d->nr_tripped,
			d->nr_tripped == 1 ? "" : "s");
}

void ana_diff_tripped_print(const struct ana_diff *d, FILE *fp)
{
	for (size_t i = 0; i < d->nr; i++)
		for (size_t r = 0; r < d->t[i].nr_rows; r++)
			if (d->t[i].rows[r].tripped)
				fprintf(fp, "fail-if: %s: %s\n", d->t[i].name, d->t[i].rows[r].key);
}
