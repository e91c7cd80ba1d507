/* SPDX-License-Identifier: MIT */
/*
 * sql.c - SQL queries over the events of a capture (perf-prof's sql).
 *
 * One table per selected event, named by alias= or the event name, plus
 * stacks, tasks, mmaps, losses and event_metadata (analyze/sql/sql.h).  The
 * queries run at the end, or every -i on that interval's events, and print
 * as perf-prof prints them: "=== query ===", a header "col | col", a rule
 * "----+----", then the rows (text left-aligned, REAL %.6f, [BLOB:n],
 * NULL); --format json prints one object per query, csv a header and rows.
 * --output2 writes every event to an SQLite file the sqlite3 CLI can read
 * (the queries then run on it when there is no -i).  --mode picks virtual
 * tables over a column store or bulk-loaded tables; --verify runs every
 * query both ways and compares.  Bad SQL is SQLite's message with the
 * query, exit 2.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "analyze/analyzer.h"
#include "analyze/sql/sql.h"
#include "analyzers/sql.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/quote.h"

#define TEXT_BUFFERED_ROWS 1000

struct sql_priv {
	struct ana_sqldb *mem;		/* where the queries run, per interval or at the end */
	struct ana_sqldb *other;	/* --verify: the same in the other mode */
	struct ana_sqldb *file;		/* --output2 */
	struct ana_sqldb *qdb;		/* mem, or file when the queries run on it */
	struct pp_mmap_ev *early;	/* maps seen before init() (the snapshot) */
	char **early_paths;
	uint8_t (*early_bids)[64];
	size_t nr_early;
	char **names;			/* per match: the name of its table */
	int *lead;			/* per match: the match whose table it fills, -1 for none */
	bool inited;
	size_t nr_csv_blocks;
	uint64_t round_start_ns;
	unsigned round;
};

/* The rows of one query, as text cells, for the aligned layout and --verify. */
struct result {
	struct pp_az *az;
	size_t nr_cols;
	char **names;
	struct pp_buf cells;		/* every cell NUL-terminated, row-major */
	size_t *offs;
	size_t nr_cells, cap_cells;
	size_t nr_rows;
	bool json_first;
	bool stream;			/* json/csv: print rows as they come */
	bool keep_all;			/* --verify compares every row */
	size_t *w;			/* text: column widths once the first rows are printed */
	const char *query;
	struct pp_buf line;
	uint64_t time_ns;
};

static enum ana_sql_mode parse_mode(const char *m, bool *ok)
{
	*ok = true;
	if (!m || !strcmp(m, "auto"))
		return ANA_SQL_AUTO;
	if (!strcmp(m, "vtab"))
		return ANA_SQL_VTAB;
	if (!strcmp(m, "table"))
		return ANA_SQL_TABLE;
	*ok = false;
	return ANA_SQL_VTAB;
}

static int open_db(struct pp_az *az, const char *path, enum ana_sql_mode mode, bool all_rows,
		   struct ana_sqldb **out)
{
	struct ana_sqldb_opts o = { .path = path, .mode = mode, .all_rows = all_rows };
	int rc = ana_sqldb_open(az->s, &o, out);

	if (rc)
		pp_err("sql: %s", ana_sqldb_errmsg(*out));
	return rc;
}

/* Event types of one tracepoint with the same fields (the same format recorded twice). */
static bool same_layout(const struct ana_evtype *a, const struct ana_evtype *b)
{
	if (strcmp(a->name, b->name) || a->nr_fields != b->nr_fields ||
	    ana_evtype_has_stack(a) != ana_evtype_has_stack(b))
		return false;
	for (size_t i = 0; i < a->nr_fields; i++) {
		const struct pp_field *x = &a->fields[i], *y = &b->fields[i];
		if (strcmp(x->name, y->name) || x->offset != y->offset || x->size != y->size ||
		    x->is_string != y->is_string || x->is_array != y->is_array ||
		    x->is_data_loc != y->is_data_loc)
			return false;
	}
	return true;
}

/* The table of a match: alias= of the -e item, else (no -e) alias= as recorded, else the event. */
static char *table_name(const struct ana_sel *sel, bool given)
{
	struct pp_selector *v = NULL;
	struct pp_parse_error err;
	size_t nr = 0;
	char *name = NULL;

	if (!given && sel->type->selector &&
	    !pp_selector_parse(sel->type->selector, &v, &nr, &err) && nr && v[0].alias)
		name = pp_xstrdup(v[0].alias);
	pp_selector_free_array(v, nr);
	return name ? name : pp_xstrdup(sel->alias);
}

/* How well match @k's event type stands for its group: 0 recorded as selected, 1 unfiltered. */
static int match_rank(const struct pp_az *az, size_t k, bool given)
{
	const struct ana_sel *sel = &az->sels[k];

	if (given && sel->type->selector && !strcmp(sel->type->selector, sel->sel->text))
		return 0;
	return !sel->type->filter || !*sel->type->filter ? 1 : 2;
}

/*
 * A capture holds one tracepoint as several event types when it was recorded
 * with several filters (-e 'sched:sched_wakeup/prio<10/alias=high_prio/,
 * sched:sched_wakeup/prio>=10/alias=low_prio/'), and each selector matches
 * every one of them; each match gets the events of its type that pass the
 * selector's filter.  The matches of one selector (without -e: of one table
 * name) make one table: from the type recorded with that very selector, else
 * from an unfiltered one (which has every event), else from all of them.
 */
static void plan_tables(struct pp_az *az)
{
	struct sql_priv *p = az->priv;
	bool given = az->opt.events.nr > 0;

	p->names = pp_xcalloc(az->nr_sels + 1, sizeof(*p->names));
	p->lead = pp_xcalloc(az->nr_sels + 1, sizeof(*p->lead));
	for (size_t k = 0; k < az->nr_sels; k++)
		p->names[k] = table_name(&az->sels[k], given);
	for (size_t k = 0; k < az->nr_sels; k++) {
		int first = -1, pick = -1, best = 3;
		for (size_t j = 0; j < az->nr_sels; j++) {
			const struct ana_sel *a = &az->sels[k], *b = &az->sels[j];
			if ((given ? a->sel != b->sel : strcmp(p->names[k], p->names[j])) ||
			    !same_layout(a->type, b->type))
				continue;
			int r = match_rank(az, j, given);
			if (first < 0)
				first = (int)j;
			if (r < best) {
				best = r;
				pick = (int)j;
			}
		}
		p->lead[k] = best == 2 ? first : pick == (int)k ? (int)k : -1;
	}
}

static int add_tables(struct pp_az *az, struct ana_sqldb *db)
{
	struct sql_priv *p = az->priv;

	for (size_t k = 0; k < az->nr_sels; k++) {
		struct ana_sel *sel = &az->sels[k];
		const char *index = pp_selector_attr(sel->sel, "index");
		int n;
		if (p->lead[k] != (int)k)
			continue;
		n = ana_sqldb_add_table(db, sel->type, p->names[k], index && *index ? index : NULL);
		if (n < 0) {
			pp_err("sql: %s", ana_sqldb_errmsg(db));
			return n;
		}
		sel->priv = (void *)(intptr_t)(n + 1);
	}
	for (size_t k = 0; k < az->nr_sels; k++)
		if (p->lead[k] != (int)k)
			az->sels[k].priv = p->lead[k] < 0 ? NULL : az->sels[p->lead[k]].priv;
	return 0;
}

static int setup_db(struct pp_az *az, struct ana_sqldb *db, const char *query)
{
	int rc = add_tables(az, db);

	if (rc)
		return rc;
	rc = ana_sqldb_plan(db, query);
	if (rc)
		pp_err("sql: %s", ana_sqldb_errmsg(db));
	return rc;
}

static int sql_init(struct pp_az *az)
{
	struct sql_priv *p = az->priv;
	const struct sql_opts *o = az->opts;
	enum ana_sql_mode mode;
	bool ok, per_interval = az->opt.interval_ns != 0;
	uint64_t lo, hi;
	int rc;

	if (!o->query && !o->output2) {
		pp_err("sql: needs --query and/or --output2 (see 'pp-analyze help sql')");
		return PP_EUSAGE;
	}
	mode = parse_mode(o->mode, &ok);
	if (!ok) {
		pp_err("sql: unknown --mode '%s': use auto, vtab or table", o->mode);
		return PP_EUSAGE;
	}
	if (o->verify && !o->query) {
		pp_err("sql: --verify needs --query");
		return PP_EUSAGE;
	}
	if (o->verify && o->output2) {
		/* perf-prof's rule and words: the file is the result, there is nothing to compare */
		((struct sql_opts *)az->opts)->verify = false;
		if (az->out.format == ANA_FMT_TEXT)
			fprintf(az->out.fp, "--verify disabled: cannot verify when SQL output is saved "
				"to file\n");
	}
	plan_tables(az);
	if (o->output2) {
		rc = open_db(az, o->output2, ANA_SQL_TABLE, true, &p->file);
		if (rc)
			return rc;
		rc = setup_db(az, p->file, o->query && !per_interval && !o->verify ? o->query : NULL);
		if (rc)
			return rc;
		if (o->query && !per_interval && !o->verify)
			p->qdb = p->file;
	}
	if (o->query && !p->qdb) {
		rc = open_db(az, NULL, mode, false, &p->mem);
		if (!rc)
			rc = setup_db(az, p->mem, o->query);
		if (rc)
			return rc;
		p->qdb = p->mem;
	}
	if (o->verify) {
		mode = ana_sqldb_mode(p->mem);
		if (az->out.format == ANA_FMT_TEXT)	/* perf-prof's line; ours is in memory */
			fprintf(az->out.fp, "Creating verification database: in memory, %s mode\n",
				mode == ANA_SQL_VTAB ? "table" : "column-store");
		rc = open_db(az, NULL, mode == ANA_SQL_VTAB ? ANA_SQL_TABLE : ANA_SQL_VTAB, false,
			     &p->other);
		if (!rc)
			rc = setup_db(az, p->other, o->query);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < p->nr_early; i++) {
		p->early[i].path = p->early_paths[i];
		p->early[i].build_id = p->early_bids[i];
		if (p->mem)
			ana_sqldb_mmap(p->mem, &p->early[i]);
		if (p->other)
			ana_sqldb_mmap(p->other, &p->early[i]);
		if (p->file)
			ana_sqldb_mmap(p->file, &p->early[i]);
	}
	/* constant _time ranges in every query: the time index skips the rest of the capture */
	if (p->mem && !p->other && !p->file && !per_interval &&
	    ana_sqldb_narrow_replay(p->mem, &lo, &hi) && az->opt.verbose) {
		char a[32], b[32];
		fprintf(stderr, "sql: the queries read events from %s to %s only: "
			"the time index skips the rest\n", lo ? ana_ts_str(lo, a, sizeof(a)) : "the start",
			hi != UINT64_MAX ? ana_ts_str(hi, b, sizeof(b)) : "the end");
	}
	if (p->mem && az->opt.verbose)
		fprintf(stderr, "sql: storage: %s\n",
			ana_sqldb_mode(p->mem) == ANA_SQL_VTAB ? "virtual tables over a column store"
							       : "bulk-loaded tables");
	p->inited = true;
	return 0;
}

static void sql_event(struct pp_az *az, const struct pp_event *ev)
{
	struct sql_priv *p = az->priv;
	int n = (int)(intptr_t)ev->sel->priv - 1;

	if (n < 0)
		return;	/* a type another of its selector's types stands for */
	if (!p->round_start_ns)
		p->round_start_ns = ev->time_ns;
	if (p->mem)
		ana_sqldb_insert(p->mem, n, ev);
	if (p->other)
		ana_sqldb_insert(p->other, n, ev);
	if (p->file)
		ana_sqldb_insert(p->file, n, ev);
}

static void sql_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct sql_priv *p = az->priv;

	if (p->mem)
		ana_sqldb_lost(p->mem, l);
	if (p->other)
		ana_sqldb_lost(p->other, l);
	if (p->file)
		ana_sqldb_lost(p->file, l);
}

static void sql_mmap(struct pp_az *az, const struct pp_mmap_ev *m)
{
	struct sql_priv *p = az->priv;

	if (!p->inited) {
		/* the start-of-capture maps come before init(): keep them until the tables exist */
		p->early = pp_xrealloc(p->early, (p->nr_early + 1) * sizeof(*p->early));
		p->early_paths = pp_xrealloc(p->early_paths, (p->nr_early + 1) * sizeof(char *));
		p->early_bids = pp_xrealloc(p->early_bids, (p->nr_early + 1) * sizeof(*p->early_bids));
		p->early[p->nr_early] = *m;
		p->early[p->nr_early].build_id_sz = m->build_id_sz < 64 ? m->build_id_sz : 64;
		memcpy(p->early_bids[p->nr_early], m->build_id, p->early[p->nr_early].build_id_sz);
		p->early_paths[p->nr_early++] = pp_xstrdup(m->path ? m->path : "");
		return;
	}
	if (p->mem)
		ana_sqldb_mmap(p->mem, m);
	if (p->other)
		ana_sqldb_mmap(p->other, m);
	if (p->file)
		ana_sqldb_mmap(p->file, m);
}

/* --- result formatting ---------------------------------------------------- */

/* A text cell is one field of the aligned table: a comm holding ESC shows \x1b (quote.h). */
static void cell_text(const struct ana_sql_val *v, struct pp_buf *b)
{
	switch (v->type) {
	case ANA_SQL_INT: pp_buf_addf(b, "%lld", (long long)v->i); break;
	case ANA_SQL_FLOAT: pp_buf_addf(b, "%.6f", v->f); break;
	case ANA_SQL_TEXT: pp_buf_add_quoted(b, v->s, v->len, PP_QUOTE_FIELD); break;
	case ANA_SQL_BLOB: pp_buf_addf(b, "[BLOB:%zu]", v->len); break;
	default: pp_buf_adds(b, "NULL"); break;
	}
}

static void hex(const struct ana_sql_val *v, struct pp_buf *b)
{
	pp_buf_adds(b, "0x");
	for (size_t i = 0; i < v->len; i++)
		pp_buf_addf(b, "%02x", (unsigned char)v->s[i]);
}

static void json_val(const struct ana_sql_val *v, struct pp_buf *b)
{
	struct pp_buf t = PP_BUF_INIT;

	switch (v->type) {
	case ANA_SQL_INT: pp_buf_addf(b, "%lld", (long long)v->i); break;
	case ANA_SQL_FLOAT: pp_buf_addf(b, "%.17g", v->f); break;
	case ANA_SQL_TEXT: pp_buf_add_json_str(b, v->s); break;
	case ANA_SQL_BLOB:
		hex(v, &t);
		pp_buf_add_json_str(b, pp_buf_str(&t));
		break;
	default: pp_buf_adds(b, "null"); break;
	}
	pp_buf_release(&t);
}

/* A byte of @s that is not UTF-8 as U+00XX (DuckDB and pandas refuse a CSV that is not UTF-8). */
static void add_utf8(struct pp_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = *p < 0x80 ? 1 : pp_utf8_seq_len(p, (size_t)(end - p));
		if (n) {
			pp_buf_add(b, p, n);
			p += n;
		} else {
			pp_buf_addch(b, 0xc0 | (*p >> 6));
			pp_buf_addch(b, 0x80 | (*p & 0x3f));
			p++;
		}
	}
}

static void csv_str(struct pp_buf *b, const char *s, size_t len)
{
	bool quote = false;

	for (size_t i = 0; i < len; i++)
		quote |= s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		add_utf8(b, s, len);
		return;
	}
	pp_buf_addch(b, '"');
	for (size_t i = 0, run = 0; i <= len; i++) {
		if (i < len && s[i] != '"')
			continue;
		add_utf8(b, s + run, i - run);
		if (i < len)
			pp_buf_adds(b, "\"\"");
		run = i + 1;
	}
	pp_buf_addch(b, '"');
}

static void csv_val(const struct ana_sql_val *v, struct pp_buf *b)
{
	switch (v->type) {
	case ANA_SQL_INT: pp_buf_addf(b, "%lld", (long long)v->i); break;
	case ANA_SQL_FLOAT: pp_buf_addf(b, "%.6f", v->f); break;
	case ANA_SQL_TEXT: csv_str(b, v->s, v->len); break;
	case ANA_SQL_BLOB: hex(v, b); break;
	default: break;
	}
}

static const char *cell(const struct result *r, size_t row, size_t col)
{
	return r->cells.data + r->offs[row * r->nr_cols + col];
}

/*
 * The aligned layout needs the widths of every cell; a result of millions of
 * rows is not kept whole: the widths come from the first rows, the rest
 * streams with them.
 */
static void print_head(struct result *r, FILE *fp)
{
	size_t *w = pp_xcalloc(r->nr_cols + 1, sizeof(*w));

	fprintf(fp, "=== %s ===\n", r->query);
	for (size_t c = 0; c < r->nr_cols; c++) {
		w[c] = strlen(r->names[c]);
		for (size_t row = 0; row < r->nr_rows; row++)
			if (strlen(cell(r, row, c)) > w[c])
				w[c] = strlen(cell(r, row, c));
	}
	for (size_t c = 0; c < r->nr_cols; c++)
		fprintf(fp, "%s%-*s", c ? " | " : "", c + 1 < r->nr_cols ? (int)w[c] : 0, r->names[c]);
	fputc('\n', fp);
	for (size_t c = 0; c < r->nr_cols; c++) {
		fputs(c ? "-+-" : "", fp);
		for (size_t k = 0; k < w[c]; k++)
			fputc('-', fp);
	}
	fputc('\n', fp);
	for (size_t row = 0; row < r->nr_rows; row++) {
		for (size_t c = 0; c < r->nr_cols; c++)
			fprintf(fp, "%s%-*s", c ? " | " : "", c + 1 < r->nr_cols ? (int)w[c] : 0,
				cell(r, row, c));
		fputc('\n', fp);
	}
	r->w = w;
}

static void print_aligned(struct result *r, FILE *fp)
{
	if (!r->w)
		print_head(r, fp);
	fputc('\n', fp);
}

static int on_row(void *arg, size_t nr_cols, const char *const *names, const struct ana_sql_val *vals)
{
	struct result *r = arg;
	FILE *fp = r->az->out.fp;

	if (!vals) {
		r->nr_cols = nr_cols;
		r->names = pp_xcalloc(nr_cols + 1, sizeof(char *));
		for (size_t c = 0; c < nr_cols; c++)
			r->names[c] = pp_xstrdup(names[c] ? names[c] : "");
		if (r->stream && r->az->out.format == ANA_FMT_CSV) {
			struct sql_priv *p = r->az->priv;
			if (p->nr_csv_blocks++)
				fputc('\n', fp);	/* a blank line between two results */
			pp_buf_reset(&r->line);
			for (size_t c = 0; c < nr_cols; c++) {
				if (c)
					pp_buf_addch(&r->line, ',');
				csv_str(&r->line, r->names[c], strlen(r->names[c]));
			}
			fprintf(fp, "%s\n", pp_buf_str(&r->line));
		}
		return 0;
	}
	r->nr_rows++;
	if (r->stream) {
		pp_buf_reset(&r->line);
		for (size_t c = 0; c < nr_cols; c++) {
			if (r->az->out.format == ANA_FMT_JSON) {
				pp_buf_adds(&r->line, c ? "," : r->json_first ? "{" : ",{");
				pp_buf_add_json_str(&r->line, r->names[c]);
				pp_buf_addch(&r->line, ':');
				json_val(&vals[c], &r->line);
			} else {
				if (c)
					pp_buf_addch(&r->line, ',');
				csv_val(&vals[c], &r->line);
			}
		}
		if (r->az->out.format == ANA_FMT_JSON) {
			pp_buf_addch(&r->line, '}');
			r->json_first = false;
			fputs(pp_buf_str(&r->line), fp);
		} else {
			fprintf(fp, "%s\n", pp_buf_str(&r->line));
		}
		if (!r->keep_all)
			return 0;	/* --verify keeps the cells too */
	}
	if (r->w) {
		/* past the first rows: stream, with the widths they gave */
		pp_buf_reset(&r->line);
		for (size_t c = 0; c < nr_cols; c++) {
			size_t before;
			if (c)
				pp_buf_adds(&r->line, " | ");
			before = r->line.len;
			cell_text(&vals[c], &r->line);
			while (c + 1 < nr_cols && r->line.len - before < r->w[c])
				pp_buf_addch(&r->line, ' ');
		}
		fprintf(fp, "%s\n", pp_buf_str(&r->line));
		return 0;
	}
	for (size_t c = 0; c < nr_cols; c++) {
		if (r->nr_cells == r->cap_cells) {
			r->cap_cells = r->cap_cells ? r->cap_cells * 2 : 256;
			r->offs = pp_xrealloc(r->offs, r->cap_cells * sizeof(*r->offs));
		}
		r->offs[r->nr_cells++] = r->cells.len;
		cell_text(&vals[c], &r->cells);
		pp_buf_addch(&r->cells, '\0');
	}
	if (!r->keep_all && r->nr_rows >= TEXT_BUFFERED_ROWS)
		print_head(r, fp);
	return 0;
}

static void result_release(struct result *r)
{
	for (size_t c = 0; r->names && c < r->nr_cols; c++)
		free(r->names[c]);
	free(r->names);
	free(r->offs);
	free(r->w);
	pp_buf_release(&r->cells);
	pp_buf_release(&r->line);
}

/* --- rounds --------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of @r as one string each, sorted (compared as multisets) unless ordered. */
static char **row_strings(const struct result *r, bool sort)
{
	char **v = pp_xcalloc(r->nr_rows + 1, sizeof(char *));

	for (size_t row = 0; row < r->nr_rows; row++) {
		struct pp_buf b = PP_BUF_INIT;
		for (size_t c = 0; c < r->nr_cols; c++) {
			pp_buf_adds(&b, cell(r, row, c));
			pp_buf_addch(&b, '\x1f');
		}
		v[row] = pp_buf_detach(&b);
	}
	if (sort)
		qsort(v, r->nr_rows, sizeof(char *), cmp_str);
	return v;
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/*
 * Whether @q orders its rows: an ORDER BY outside parentheses (not one of a
 * subquery, a window or an IN list), string literals, quoted names and comments.
 */
static bool query_ordered(const char *q)
{
	int depth = 0;

	for (const char *s = q; *s; s++) {
		if (*s == '\'' || *s == '"' || *s == '`' || *s == '[') {
			s = strchr(s + 1, *s == '[' ? ']' : *s);	/* '' is two literals in a row */
		} else if (s[0] == '-' && s[1] == '-') {
			s = strchr(s, '\n');
		} else if (s[0] == '/' && s[1] == '*') {
			s = strstr(s + 2, "*/");
			s = s ? s + 1 : NULL;
		} else if (*s == '(' || *s == ')') {
			depth += *s == '(' ? 1 : -1;
		} else if (!depth && !strncasecmp(s, "order", 5) && (s == q || !is_ident(s[-1])) &&
			   !is_ident(s[5])) {
			const char *b = s + 5;
			while (isspace((unsigned char)*b))
				b++;
			if (!strncasecmp(b, "by", 2) && !is_ident(b[2]))
				return true;
		}
		if (!s)
			break;	/* unterminated: the rest is a literal or a comment */
	}
	return false;
}

static void verify(struct pp_az *az, size_t i, const struct result *a)
{
	struct sql_priv *p = az->priv;
	struct result b = { .az = az, .keep_all = true };
	const char *q = ana_sqldb_query(p->mem, i);
	bool sort = !query_ordered(q);
	char **ra, **rb;
	size_t diff = SIZE_MAX;

	if (ana_sqldb_exec(p->other, i, on_row, &b)) {
		pp_err("sql: --verify: %s", ana_sqldb_errmsg(p->other));
		az->exit_status = 1;
		result_release(&b);
		return;
	}
	ra = row_strings(a, sort);
	rb = row_strings(&b, sort);
	for (size_t k = 0; k < a->nr_rows && k < b.nr_rows && diff == SIZE_MAX; k++)
		if (strcmp(ra[k], rb[k]))
			diff = k;
	if (a->nr_rows != b.nr_rows || diff != SIZE_MAX) {
		pp_err("sql: --verify: query %zu differs between the modes (%zu rows vs %zu, first "
		       "difference at row %zu): %s", i + 1, a->nr_rows, b.nr_rows,
		       diff == SIZE_MAX ? (a->nr_rows < b.nr_rows ? a->nr_rows : b.nr_rows) : diff, q);
		az->exit_status = 1;
	} else if (az->opt.verbose || pp_log_level >= PP_LOG_VERBOSE) {
		/* agreement is said with -v only: perf-prof's --verify is silent when it holds */
		fprintf(stderr, "sql: verify: query %zu: %zu rows, same in both modes\n", i + 1,
			a->nr_rows);
	}
	for (size_t k = 0; k < a->nr_rows; k++)
		free(ra[k]);
	for (size_t k = 0; k < b.nr_rows; k++)
		free(rb[k]);
	free(ra);
	free(rb);
	result_release(&b);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_round(struct pp_az *az, uint64_t t_ns)
{
	struct sql_priv *p = az->priv;
	FILE *fp = az->out.fp;
	char ts[64];

	if (!p->qdb)
		return;
	if (az->opt.interval_ns && az->out.format == ANA_FMT_TEXT)
		fprintf(fp, "%s\n", ana_time_str(az->s, t_ns, ts, sizeof(ts)));
	for (size_t i = 0; i < ana_sqldb_nr_queries(p->qdb); i++) {
		const char *q = ana_sqldb_query(p->qdb, i);
		struct result r = { .az = az, .json_first = true, .time_ns = t_ns, .query = q,
				    .keep_all = p->other != NULL };
		double t0 = now_s();
		int rc;

		r.stream = az->out.format != ANA_FMT_TEXT;
		if (az->out.format == ANA_FMT_JSON) {
			pp_buf_adds(&r.line, "{\"query\":");
			pp_buf_add_json_str(&r.line, q);
			if (az->opt.interval_ns)
				pp_buf_addf(&r.line, ",\"time\":%llu", (unsigned long long)t_ns);
			pp_buf_adds(&r.line, ",\"rows\":[");
			fputs(pp_buf_str(&r.line), fp);
		}
		rc = ana_sqldb_exec(p->qdb, i, on_row, &r);
		if (rc) {
			pp_err("sql: %s", ana_sqldb_errmsg(p->qdb));
			az->exit_status = 2;
		}
		if (az->out.format == ANA_FMT_JSON) {
			fputs("]}\n", fp);
		} else if (!rc && az->out.format == ANA_FMT_TEXT) {
			print_aligned(&r, fp);
		}
		if (az->opt.verbose)
			fprintf(stderr, "sql: query %zu: %zu rows in %.3f s\n", i + 1, r.nr_rows,
				now_s() - t0);
		if (!rc && p->other)
			verify(az, i, &r);
		result_release(&r);
	}
	fflush(fp);
	p->round++;
}

static void sql_interval(struct pp_az *az, uint64_t now_ns)
{
	struct sql_priv *p = az->priv;

	if (!p->qdb || p->qdb == p->file)
		return;
	run_round(az, now_ns);
	ana_sqldb_clear(p->mem);
	if (p->other)
		ana_sqldb_clear(p->other);
	p->round_start_ns = now_ns;
}

static int sql_finish(struct pp_az *az)
{
	struct sql_priv *p = az->priv;
	const struct sql_opts *o = az->opts;

	if (!p->inited)
		return 0;
	ana_report_header(az);
	if (p->file && ana_sqldb_flush(p->file)) {
		pp_err("sql: %s: %s", o->output2, ana_sqldb_errmsg(p->file));
		return 1;
	}
	run_round(az, ana_capture_end_ns(az->s));
	if (az->opt.verbose && az->out.format == ANA_FMT_TEXT)
		fprintf(az->out.fp, "Total Inserts: %llu\n",
			(unsigned long long)ana_sqldb_rows(p->qdb ? p->qdb : p->file));
	if (az->opt.verbose)
		fprintf(stderr, "sql: %llu segments of the capture read\n",
			(unsigned long long)ana_sqldb_segments_read(p->qdb ? p->qdb : p->file));
	return 0;
}

static void sql_release(struct pp_az *az)
{
	struct sql_priv *p = az->priv;

	ana_sqldb_close(p->mem);
	ana_sqldb_close(p->other);
	ana_sqldb_close(p->file);
	for (size_t k = 0; p->names && k < az->nr_sels; k++)
		free(p->names[k]);
	free(p->names);
	free(p->lead);
	for (size_t i = 0; i < p->nr_early; i++)
		free(p->early_paths[i]);
	free(p->early_paths);
	free(p->early_bids);
	free(p->early);
}


const struct pp_analyzer_ops az_sql_ops = {
	.summary = "SQL queries over the events (SQLite): tables per event, stacks, tasks, mmaps",
	.usage = "pp-analyze FILE sql [-e EVENT[/alias=NAME/index=FIELD/]...] --query 'SQL; SQL' "
		 "[--output2 FILE.db] [-i MS]",
	.examples =
		"  pp-analyze cap sql -e sched:sched_switch --query 'SELECT prev_comm, count(*) AS n "
		"FROM sched_switch GROUP BY prev_comm ORDER BY n DESC'\n"
		"  pp-analyze cap sql -e sched:sched_wakeup,sched:sched_switch --query 'SELECT w.pid, "
		"count(*) FROM sched_wakeup w JOIN sched_switch s ON s.next_pid = w.pid GROUP BY 1'\n"
		"  pp-analyze cap sql -e 'irq:softirq_entry' --query \"SELECT symbolic('softirq_entry.vec', "
		"vec) AS vec, count(*) FROM softirq_entry GROUP BY 1\"\n"
		"  pp-analyze cap sql -e 'cpu-clock' --query 'SELECT stack_str(_stack), count(*) FROM "
		"\"cpu-clock\" GROUP BY 1' --format csv\n"
		"  pp-analyze cap sql --output2 cap.db          # every event; then: sqlite3 cap.db\n"
		"  pp-analyze cap sql -e sched:sched_switch -i 1000 --query 'SELECT count(*) FROM "
		"sched_switch'\n",
	.priv_size = sizeof(struct sql_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = sql_init,
	.event = sql_event,
	.lost = sql_lost,
	.mmap = sql_mmap,
	.interval = sql_interval,
	.finish = sql_finish,
	.release = sql_release,
};
