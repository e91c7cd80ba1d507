/* SPDX-License-Identifier: MIT */
/*
 * export-table.c - one row per event as JSON lines or CSV, for pandas, DuckDB and friends.
 *
 * Columns: time (capture seconds with 9 decimals), cpu, pid, tid, comm, event, then the
 * event's fields by name, then "stack" with --stacks ("outer;...;inner" symbols).  CSV
 * has one header: the union of the fields of every matched event type, in the order
 * first seen, with empty cells where an event lacks a field; a JSON line has only its
 * event's fields.  A field whose name is taken by a fixed column gets an "f_" prefix
 * (sched_wakeup's pid becomes f_pid).  Numbers are written as numbers (pointers too),
 * strings as strings, arrays as JSON arrays ("[1,2]", quoted in CSV).  Rows stream out;
 * nothing is kept between events but the column map.
 */
#include <errno.h>
#include <string.h>

#include "analyze/export/internal.h"
#include "common/intern.h"
#include "common/log.h"

static const char *const fixed_cols[] = { "time", "cpu", "pid", "tid", "comm", "event", "stack" };

struct cell {
	size_t off, len;
	bool set;
};

struct table_priv {
	bool csv;
	struct pp_buf out, scratch;
	struct pp_intern *cols;		/* field column names, in column order */
	uint32_t **col_of;		/* per selector match: column of its k-th field */
	const char ***names;		/* per selector match: output name of its k-th field */
	size_t nr_sels;
	struct cell *cells;		/* per column, one row */
	uint32_t k;			/* fields seen in the current event */
	const struct pp_event *ev;
	struct ana_frame stack[ANA_EXPORT_MAX_FRAMES];
};

struct name_ctx {
	struct table_priv *p;
	size_t sel;
	uint32_t n;
	struct pp_buf tmp;
};

static bool is_fixed(const char *name)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(fixed_cols); i++)
		if (!strcmp(name, fixed_cols[i]))
			return true;
	return false;
}

static void name_cb(void *arg, const char *name)
{
	struct name_ctx *c = arg;
	struct table_priv *p = c->p;
	uint32_t col;

	pp_buf_reset(&c->tmp);
	if (is_fixed(name))
		ANA_XB_LIT(&c->tmp, "f_");
	pp_buf_adds(&c->tmp, name);
	col = pp_intern_put(p->cols, c->tmp.data, c->tmp.len, NULL);
	p->col_of[c->sel] = pp_xrealloc(p->col_of[c->sel], (c->n + 1) * sizeof(uint32_t));
	p->names[c->sel] = pp_xrealloc(p->names[c->sel], (c->n + 1) * sizeof(char *));
	p->col_of[c->sel][c->n] = col;
	p->names[c->sel][c->n] = pp_intern_key(p->cols, col, NULL);
	c->n++;
}

/* RFC 4180 quoting; bytes that are not UTF-8 as U+00XX (DuckDB refuses invalid UTF-8). */
static void add_csv_cell(struct pp_buf *b, const char *s, size_t len)
{
	bool high = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			break;
		high |= (unsigned char)s[i] >= 0x80;
	}
	if (i == len) {
		if (high)
			ana_buf_add_utf8(b, s, len);
		else
			ana_xb_put(b, s, len);
		return;
	}
	ana_xb_ch(b, '"');
	while (len) {
		for (i = 0; i < len && s[i] != '"'; i++)
			;
		ana_buf_add_utf8(b, s, i);
		if (i < len)
			ANA_XB_LIT(b, "\"\"");
		i += i < len;
		s += i;
		len -= i;
	}
	ana_xb_ch(b, '"');
}

static int table_begin_common(struct ana_export *x, bool csv)
{
	struct table_priv *p = x->priv;
	struct pp_az *az = x->az;
	struct name_ctx c = { .p = p, .tmp = PP_BUF_INIT };

	p->csv = csv;
	p->cols = pp_intern_new();
	p->nr_sels = az->nr_sels;
	p->col_of = pp_xcalloc(az->nr_sels + 1, sizeof(*p->col_of));
	p->names = pp_xcalloc(az->nr_sels + 1, sizeof(*p->names));
	for (size_t i = 0; i < az->nr_sels; i++) {
		c.sel = i;
		c.n = 0;
		ana_export_field_names(az->sels[i].type, name_cb, &c);
	}
	pp_buf_release(&c.tmp);
	p->cells = pp_xcalloc(pp_intern_count(p->cols) + 1, sizeof(*p->cells));
	if (!csv)
		return 0;
	ANA_XB_LIT(&p->out, "time,cpu,pid,tid,comm,event");
	for (uint32_t i = 0; i < pp_intern_count(p->cols); i++) {
		size_t len;
		const char *n = pp_intern_key(p->cols, i, &len);
		ana_xb_ch(&p->out, ',');
		add_csv_cell(&p->out, n, len);
	}
	if (x->cfg.stacks)
		ANA_XB_LIT(&p->out, ",stack");
	ana_xb_ch(&p->out, '\n');
	return 0;
}

static int jsonl_begin(struct ana_export *x)
{
	return table_begin_common(x, false);
}

static int csv_begin(struct ana_export *x)
{
	return table_begin_common(x, true);
}

/* Symbol names of @ev's stack, outermost first, ';'-separated, into @b. */
static void add_stack(struct ana_export *x, struct table_priv *p, const struct pp_event *ev,
		      struct pp_buf *b)
{
	size_t n = ana_stack_frames(ev, p->stack, ANA_EXPORT_MAX_FRAMES);
	char name[256];

	for (size_t i = n; i-- > 0;) {
		ana_frame_name(x->s, ev, p->stack[i].addr, p->stack[i].kernel, name, sizeof(name));
		if (i + 1 < n)
			ana_xb_ch(b, ';');
		pp_buf_adds(b, name);
	}
}

static void jsonl_field(void *arg, const struct ana_xfield *f)
{
	struct table_priv *p = arg;
	const struct pp_event *ev = p->ev;
	const char *name = f->name;

	if (ev->sel && ev->sel->index < p->nr_sels && p->names[ev->sel->index])
		name = p->names[ev->sel->index][p->k];
	p->k++;
	ana_xb_ch(&p->out, ',');
	ana_buf_add_json_str(&p->out, name, strlen(name));
	ana_xb_ch(&p->out, ':');
	ana_xfield_json(&p->out, f);
}

static void head(struct ana_export *x, struct table_priv *p, const struct pp_event *ev, bool csv)
{
	const char *comm = ana_comm(x->s, ev->tid);
	const char *name = ev->sel && ev->sel->sel->alias ? ev->sel->sel->alias : ev->type->name;

	if (!csv)
		ANA_XB_LIT(&p->out, "{\"time\":");
	ana_buf_add_frac(&p->out, ev->time_ns, 9);
	pp_buf_adds(&p->out, csv ? "," : ",\"cpu\":");
	ana_buf_add_u64(&p->out, ev->cpu);
	pp_buf_adds(&p->out, csv ? "," : ",\"pid\":");
	ana_buf_add_u64(&p->out, ev->pid);
	pp_buf_adds(&p->out, csv ? "," : ",\"tid\":");
	ana_buf_add_u64(&p->out, ev->tid);
	pp_buf_adds(&p->out, csv ? "," : ",\"comm\":");
	if (csv)
		add_csv_cell(&p->out, comm, strlen(comm));
	else
		ana_buf_add_json_str(&p->out, comm, strlen(comm));
	pp_buf_adds(&p->out, csv ? "," : ",\"event\":");
	if (csv)
		add_csv_cell(&p->out, name, strlen(name));
	else
		ana_buf_add_json_str(&p->out, name, strlen(name));
}

static void jsonl_event(struct ana_export *x, const struct pp_event *ev)
{
	struct table_priv *p = x->priv;

	head(x, p, ev, false);
	p->ev = ev;
	p->k = 0;
	ana_export_fields(ev, jsonl_field, p);
	if (x->cfg.stacks) {
		pp_buf_reset(&p->scratch);
		add_stack(x, p, ev, &p->scratch);
		ANA_XB_LIT(&p->out, ",\"stack\":");
		ana_buf_add_json_str(&p->out, p->scratch.data ? p->scratch.data : "",
				     p->scratch.len);
	}
	ANA_XB_LIT(&p->out, "}\n");
	if (p->out.len >= (256u << 10))
		ana_export_write(x, &p->out);
}

static void csv_field(void *arg, const struct ana_xfield *f)
{
	struct table_priv *p = arg;
	const struct pp_event *ev = p->ev;
	struct cell *c;
	size_t start;

	if (!ev->sel || ev->sel->index >= p->nr_sels || !p->col_of[ev->sel->index])
		return;
	c = &p->cells[p->col_of[ev->sel->index][p->k++]];
	start = p->scratch.len;
	if (f->kind == ANA_XF_STR)
		ana_xb_put(&p->scratch, f->str, strlen(f->str));
	else
		ana_xfield_json(&p->scratch, f);
	*c = (struct cell){ start, p->scratch.len - start, true };
}

static void csv_event(struct ana_export *x, const struct pp_event *ev)
{
	struct table_priv *p = x->priv;
	size_t nr_cols = pp_intern_count(p->cols);

	head(x, p, ev, true);
	pp_buf_reset(&p->scratch);
	memset(p->cells, 0, nr_cols * sizeof(*p->cells));
	p->ev = ev;
	p->k = 0;
	ana_export_fields(ev, csv_field, p);
	for (size_t i = 0; i < nr_cols; i++) {
		ana_xb_ch(&p->out, ',');
		if (p->cells[i].set)
			add_csv_cell(&p->out, p->scratch.data + p->cells[i].off, p->cells[i].len);
	}
	if (x->cfg.stacks) {
		pp_buf_reset(&p->scratch);
		add_stack(x, p, ev, &p->scratch);
		ana_xb_ch(&p->out, ',');
		add_csv_cell(&p->out, p->scratch.data ? p->scratch.data : "", p->scratch.len);
	}
	ana_xb_ch(&p->out, '\n');
	if (p->out.len >= (256u << 10))
		ana_export_write(x, &p->out);
}

static int table_end(struct ana_export *x)
{
	struct table_priv *p = x->priv;

	return ana_export_write(x, &p->out) ? 0 : -EIO;
}

static void table_release(struct ana_export *x)
{
	struct table_priv *p = x->priv;

	for (size_t i = 0; i < p->nr_sels; i++) {
		free(p->col_of[i]);
		free(p->names[i]);
	}
	free(p->col_of);
	free(p->names);
	free(p->cells);
	pp_intern_free(p->cols);
	pp_buf_release(&p->out);
	pp_buf_release(&p->scratch);
}

const struct ana_export_ops ana_export_jsonl = {
	.name = "jsonl",
	.summary = "JSON lines: one object per event (time, cpu, pid, tid, comm, event, fields)",
	.priv_size = sizeof(struct table_priv),
	.begin = jsonl_begin,
	.event = jsonl_event,
	.end = table_end,
	.release = table_release,
};

const struct ana_export_ops ana_export_csv = {
	.name = "csv",
	.summary = "CSV: one row per event, a column per field of the matched event types",
	.priv_size = sizeof(struct table_priv),
	.begin = csv_begin,
	.event = csv_event,
	.end = table_end,
	.release = table_release,
};
