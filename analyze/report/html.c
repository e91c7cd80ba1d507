/* SPDX-License-Identifier: MIT */
/*
 * html.c - the page: escaping for each of its contexts, sections, tables, and the
 * whole document with its inline style and script.
 *
 * Whatever comes from the capture is hostile input (a comm is any 15 bytes, a
 * symbol any string of a binary): in HTML text and attribute values it passes
 * through rpt_html() (& < > " ' as entities, C0 and C1 controls and bytes that
 * are not UTF-8 as U+FFFD, so the page stays valid UTF-8 and safe to cat); in the
 * JSON the script reads it passes through rpt_json() (no raw '<', '>' or '&', so
 * "</script>" cannot end the data block; controls, U+2028/9 escaped, bytes that are
 * not UTF-8 as U+FFFD).  The script only ever puts it into the page as text
 * (textContent, title), never as markup.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/log.h"

/* page.c: the inline style and script */
extern const char ana_rpt_page_css[];
extern const char ana_rpt_page_js[];

/* A C1 control, U+0080..U+009F, in UTF-8 (c2 80 .. c2 9f). */
static bool c1_control(const unsigned char *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

/* The valid UTF-8 sequence at @p, or 0; no controls but tab and newline. */
static size_t text_char(const unsigned char *p)
{
	size_t n;

	if (*p < 0x80)
		return *p >= 0x20 || *p == '\t' || *p == '\n' ? 1 : 0;
	n = pp_utf8_seq_len(p, strnlen((const char *)p, 4));
	return c1_control(p, n) ? 0 : n;
}

void rpt_html(struct pp_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = text_char(p);

		switch (n ? *p : 0) {
		case '&': pp_buf_adds(b, "&amp;"); break;
		case '<': pp_buf_adds(b, "&lt;"); break;
		case '>': pp_buf_adds(b, "&gt;"); break;
		case '"': pp_buf_adds(b, "&quot;"); break;
		case '\'': pp_buf_adds(b, "&#39;"); break;
		case 0x7f: pp_buf_adds(b, "\xef\xbf\xbd"); break;
		case 0: pp_buf_adds(b, "\xef\xbf\xbd"); n = 1; break;
		default: pp_buf_add(b, p, n);
		}
		p += n;
	}
}

void rpt_json(struct pp_buf *b, const char *s)
{
	pp_buf_addch(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = *p >= 0x80 ? pp_utf8_seq_len(p, strnlen((const char *)p, 4)) : 1;

		if (!n) {
			pp_buf_adds(b, "\\ufffd");
			n = 1;
		} else if (c1_control(p, n)) {
			pp_buf_addf(b, "\\u%04x", p[1]);
		} else if (n == 3 && !memcmp(p, "\xe2\x80", 2) && (p[2] == 0xa8 || p[2] == 0xa9)) {
			pp_buf_addf(b, "\\u%04x", 0x2000 | (p[2] & 0x3f));	/* U+2028/9 */
		} else if (n > 1) {
			pp_buf_add(b, p, n);
		} else if (*p == '"' || *p == '\\') {
			pp_buf_addch(b, '\\');
			pp_buf_addch(b, *p);
		} else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f) {
			pp_buf_addf(b, "\\u%04x", *p);
		} else {
			pp_buf_addch(b, *p);
		}
		p += n;
	}
	pp_buf_addch(b, '"');
}

bool rpt_number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	*v = strtod(s, &end);
	if (end == s || !isfinite(*v))
		return false;
	if (*end == '%')
		end++;
	return !*end;
}

static void section_end(struct ana_rpt *r)
{
	if (r->in_section)
		pp_buf_adds(&r->body, "</section>\n");
	r->in_section = false;
}

void ana_rpt_section(struct ana_rpt *r, const char *id, const char *title)
{
	section_end(r);
	pp_buf_adds(&r->body, "<section id=\"");
	rpt_html(&r->body, id);
	pp_buf_adds(&r->body, "\">\n<h2>");
	rpt_html(&r->body, title);
	pp_buf_adds(&r->body, "</h2>\n");
	pp_buf_adds(&r->nav, "<a href=\"#");
	rpt_html(&r->nav, id);
	pp_buf_adds(&r->nav, "\">");
	rpt_html(&r->nav, title);
	pp_buf_adds(&r->nav, "</a>\n");
	r->in_section = true;
}

void ana_rpt_text(struct ana_rpt *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = pp_xvasprintf(fmt, ap);
	va_end(ap);
	pp_buf_adds(&r->body, "<p>");
	rpt_html(&r->body, s);
	pp_buf_adds(&r->body, "</p>\n");
	free(s);
}

void ana_rpt_command(struct ana_rpt *r, const char *cmd)
{
	pp_buf_adds(&r->body, "<p class=\"cmd\"><span>reproduce:</span> <code>");
	rpt_html(&r->body, cmd);
	pp_buf_adds(&r->body, "</code></p>\n");
}

struct rank_ctx {
	const struct rpt_csv *t;
	size_t col;
};

/* Rows by the rank column, largest first; rows without a number last; stable. */
static int rank_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_ctx *k = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double vx = -INFINITY, vy = -INFINITY;

	rpt_number(k->t->cells[x * k->t->nr_cols + k->col], &vx);
	rpt_number(k->t->cells[y * k->t->nr_cols + k->col], &vy);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x < y ? -1 : x > y;
}

static bool dropped(const char *const *drop, const char *col)
{
	for (const char *const *d = drop; d && *d; d++)
		if (!strcmp(*d, col))
			return true;
	return false;
}

static size_t col_index(const struct rpt_csv *t, const char *name)
{
	for (size_t i = 0; name && i < t->nr_cols; i++)
		if (!strcmp(t->cols[i], name))
			return i;
	return SIZE_MAX;
}

void rpt_table_html(struct pp_buf *b, const struct rpt_csv *t, const size_t *order, size_t nr,
		    const char *const *drop)
{
	double v;

	pp_buf_adds(b, "<div class=\"tw\"><table class=\"sortable\">\n<thead><tr>");
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (dropped(drop, t->cols[c]))
			continue;
		pp_buf_adds(b, "<th>");
		rpt_html(b, t->cols[c]);
		pp_buf_adds(b, "</th>");
	}
	pp_buf_adds(b, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < nr; i++) {
		const char *const *row = (const char *const *)&t->cells[order[i] * t->nr_cols];

		pp_buf_adds(b, "<tr>");
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (dropped(drop, t->cols[c]))
				continue;
			pp_buf_adds(b, rpt_number(row[c], &v) ? "<td class=\"n\">" : "<td>");
			rpt_html(b, row[c]);
			pp_buf_adds(b, "</td>");
		}
		pp_buf_adds(b, "</tr>\n");
	}
	pp_buf_adds(b, "</tbody></table></div>\n");
}

size_t ana_rpt_table(struct ana_rpt *r, const struct ana_rpt_child *c,
		     const struct ana_rpt_table_opts *o)
{
	struct rpt_csv t;
	size_t *order, nr, rank;

	rpt_csv_parse(c->out, c->out_sz, o->table, &t);
	if (o->table && !t.nr_cols)
		return 0;	/* the analyzer did not write that table this time */
	if (o->caption) {
		pp_buf_adds(&r->body, "<h3>");
		rpt_html(&r->body, o->caption);
		pp_buf_adds(&r->body, "</h3>\n");
	}
	if (o->show_cmd)
		ana_rpt_command(r, c->cmd);
	if (c->rc || c->az.exit_status)
		ana_rpt_text(r, "%s failed: what follows may be incomplete", c->az.name);
	if (!t.nr_rows) {
		ana_rpt_text(r, "nothing to show: %s printed no rows", c->az.name);
		rpt_csv_release(&t);
		return 0;
	}
	order = pp_xmalloc(t.nr_rows * sizeof(*order));
	for (size_t i = 0; i < t.nr_rows; i++)
		order[i] = i;
	rank = col_index(&t, o->rank_by);
	if (rank != SIZE_MAX)
		qsort_r(order, t.nr_rows, sizeof(*order), rank_cmp, &(struct rank_ctx){ &t, rank });
	nr = o->max_rows && t.nr_rows > o->max_rows ? o->max_rows : t.nr_rows;
	if (nr < t.nr_rows && rank != SIZE_MAX)
		ana_rpt_text(r, "%zu of %zu rows: those with the largest %s; the command prints "
			     "them all.", nr, t.nr_rows, t.cols[rank]);
	else if (nr < t.nr_rows)
		ana_rpt_text(r, "the first %zu of %zu rows; the command prints them all.", nr,
			     t.nr_rows);
	rpt_table_html(&r->body, &t, order, nr, o->drop);
	free(order);
	nr = t.nr_rows;
	rpt_csv_release(&t);
	return nr;
}

int ana_rpt_write(struct ana_rpt *r, FILE *fp, const char *title)
{
	struct pp_buf b = PP_BUF_INIT, t = PP_BUF_INIT;
	const char *host = ana_host(r->s, "hostname");

	if (!title) {
		pp_buf_addf(&t, "pp report: %s%s%s", host ? host : "", host ? ", " : "",
			    r->s->path);
		title = pp_buf_str(&t);
	}
	section_end(r);
	pp_buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"pp-analyze report\">\n<title>");
	rpt_html(&b, title);
	pp_buf_adds(&b, "</title>\n<style>\n");
	pp_buf_adds(&b, ana_rpt_page_css);
	pp_buf_adds(&b, "</style>\n</head>\n<body>\n<header>\n<h1>");
	rpt_html(&b, title);
	pp_buf_adds(&b, "</h1>\n<nav>\n");
	pp_buf_adds(&b, pp_buf_str(&r->nav));
	pp_buf_adds(&b, "</nav>\n</header>\n<main>\n");
	fwrite(b.data, 1, b.len, fp);
	fwrite(pp_buf_str(&r->body), 1, r->body.len, fp);
	pp_buf_reset(&b);
	pp_buf_adds(&b, "</main>\n<footer>pp-analyze report: one file, nothing fetched; "
		    "every section names the command that prints its numbers.</footer>\n"
		    "<script type=\"application/json\" id=\"pp-data\">{\"flames\":[");
	pp_buf_adds(&b, pp_buf_str(&r->flames));
	pp_buf_adds(&b, "],\"heatmaps\":[");
	pp_buf_adds(&b, pp_buf_str(&r->heatmaps));
	pp_buf_adds(&b, "]}</script>\n<script>\n");
	pp_buf_adds(&b, ana_rpt_page_js);
	pp_buf_adds(&b, "</script>\n</body>\n</html>\n");
	fwrite(b.data, 1, b.len, fp);
	pp_buf_release(&b);
	pp_buf_release(&t);
	if (fflush(fp) || ferror(fp))
		return -(errno ? errno : EIO);
	return 0;
}
