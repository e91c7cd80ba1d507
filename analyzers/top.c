/* SPDX-License-Identifier: MIT */
/*
 * top.c - key/value aggregation in top mode (perf-prof's top).
 *
 * Each event adds to one row, found by its key (key=EXPR, else the -k
 * EXPR of every event without key=, else the thread id) and, when names
 * are shown, its name (comm=EXPR, else the comm of the key as a task).
 * Each event has value columns: top-by=EXPR (summed, sorts the table, in
 * order), top-add=EXPR (summed, display only), or without either a count
 * of the event titled by its alias or name.  Titles are the expressions
 * in upper case.  The table is printed and emptied at each -i tick of
 * capture time (every second without -i, as perf-prof's) and at the end,
 * sorted by the top-by columns, then the others, descending, then by key
 * and name.
 *
 * The hot path is one hash lookup by key and a string compare of the name:
 * rows live in a bump arena reset with the table, so an event never
 * allocates once its row exists.  The state (--state-out) is the rows and
 * the event count: rows of the same key and name add up, as events do.
 * Not here: the terminal's alternate screen of live perf-prof (a replay
 * prints tables one after another).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/top.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/wire.h"

struct top_col {
	char *title;		/* upper case */
	int width;		/* at least 12 */
	bool top_by;
	struct pp_expr *e;	/* NULL: count the event */
};

/* What one match (an event type of an -e item) contributes. */
struct top_match {
	struct pp_expr *key;	/* NULL: the thread id */
	struct pp_expr *comm;	/* NULL: the comm of the key as a task */
	size_t first_col, nr_cols;
};

struct top_row {
	struct top_row *next;	/* same map slot */
	uint64_t key;
	const char *comm;	/* NULL when names are not shown */
	uint64_t comm_id;	/* ana_comm_id() of the last name found equal, NO_COMM_ID if none */
	uint64_t v[];		/* one per column */
};

/*
 * Rows last found, direct-mapped by key: most events find theirs here, not in
 * the map (a third of `top`'s own instructions a replay of scheduler events).
 */
#define TOP_RCACHE 64

struct top_chunk {
	struct top_chunk *next;
	size_t used, size;
	char data[];
};

struct top_priv {
	struct top_match *m;	/* per match (sel->index) */
	struct top_col *cols;
	size_t nr_cols, nr_top_by;
	char *key_title, *comm_title;
	int key_width;
	bool show_comm, only_comm;
	struct pp_expr *printkey;	/* of the first event with printkey= */
	const struct ana_evtype *printkey_type;
	struct pp_u64map rows;	/* key (or name hash with --only-comm) -> struct top_row chain */
	struct top_row *rcache[TOP_RCACHE];	/* by key: the row last found (not --only-comm) */
	struct top_row **list;	/* every row, for sorting */
	size_t nr_rows, cap_rows;
	struct top_chunk *chunks, *cur, *tail;	/* the row arena; reset with the table */
	uint64_t nr_events;	/* cumulative, as perf-prof counts */
};

static char *upper_dup(const char *s)
{
	char *u = strdup(s);

	if (!u)
		return NULL;
	for (char *c = u; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return u;
}

static void *arena_alloc(struct top_priv *p, size_t sz)
{
	struct top_chunk *c = p->cur;

	sz = (sz + 7) & ~(size_t)7;
	while (c && c->used + sz > c->size)
		c = c->next;	/* chunks after cur are empty since the last reset */
	if (!c) {
		size_t cap = sz > (64u << 10) ? sz : (64u << 10);
		c = malloc(sizeof(*c) + cap);
		if (!c)
			abort();
		c->next = NULL;
		c->used = 0;
		c->size = cap;
		if (p->tail)
			p->tail->next = c;
		else
			p->chunks = c;
		p->tail = c;
	}
	p->cur = c;
	void *r = c->data + c->used;
	c->used += sz;
	return r;
}

static void table_reset(struct top_priv *p)
{
	for (struct top_chunk *c = p->chunks; c; c = c->next)
		c->used = 0;
	p->cur = p->chunks;
	pp_u64map_release(&p->rows);
	memset(p->rcache, 0, sizeof(p->rcache));
	p->nr_rows = 0;
}

static int col_add(struct top_priv *p, const char *title, bool top_by, struct pp_expr *e)
{
	struct top_col *c;

	p->cols = realloc(p->cols, (p->nr_cols + 1) * sizeof(*p->cols));
	if (!p->cols)
		return -ENOMEM;
	c = &p->cols[p->nr_cols++];
	c->title = upper_dup(title);
	c->width = (int)strlen(c->title) < 12 ? 12 : (int)strlen(c->title);
	c->top_by = top_by;
	c->e = e;
	p->nr_top_by += top_by;
	return 0;
}

/* The value columns of one match: top-by= and top-add= in the order written. */
static int match_cols(struct pp_az *az, const struct ana_sel *sel)
{
	struct top_priv *p = az->priv;
	const struct pp_selector *s = sel->sel;
	struct pp_expr *e;
	size_t first = p->nr_cols;
	int rc;

	for (size_t i = 0; i < s->nr_attrs; i++) {
		const struct pp_sel_attr *a = &s->attrs[i];
		bool by = !strcmp(a->name, "top-by");
		if (!by && strcmp(a->name, "top-add"))
			continue;
		if (!a->value || !*a->value) {
			fprintf(stderr, "top: %s of %s needs an expression\n", a->name,
				sel->type->name);
			return PP_EUSAGE;
		}
		rc = ana_expr_compile(az, sel->type, a->name, a->value, &e);
		if (rc)
			return rc;
		/* the first column of an aliased event is titled by the alias */
		rc = col_add(p, p->nr_cols == first && s->alias ? s->alias : a->value, by, e);
		if (rc)
			return rc;
	}
	if (p->nr_cols == first) {
		rc = col_add(p, s->alias ? s->alias : sel->type->event, false, NULL);
		if (rc)
			return rc;
	}
	p->m[sel->index].first_col = first;
	p->m[sel->index].nr_cols = p->nr_cols - first;
	return 0;
}

static int match_init(struct pp_az *az, const struct ana_sel *sel, const char **key_text,
		      const char **comm_text)
{
	struct top_priv *p = az->priv;
	struct top_match *m = &p->m[sel->index];
	const char *key = pp_selector_attr(sel->sel, "key");
	const char *comm = pp_selector_attr(sel->sel, "comm");
	const char *pk = pp_selector_attr(sel->sel, "printkey");
	const char *what = "key";
	int rc;

	if (!key && az->opt.key) {
		key = az->opt.key;	/* -k EXPR: the key= of every event without one */
		what = "-k";
	}
	if (key && *key) {
		rc = ana_expr_compile(az, sel->type, what, key, &m->key);
		if (rc)
			return rc;
		if (pp_expr_flags(m->key) & PP_EXPR_USES_ARRAY) {
			fprintf(stderr, "top: %s%s%s of %s: a key is a number, arrays cannot be "
				"used\n", what, *what == '-' ? " " : "=", key, sel->type->name);
			return PP_ETYPE;
		}
		if (!*key_text)
			*key_text = key;
	}
	if (comm && *comm) {
		rc = ana_expr_compile(az, sel->type, "comm", comm, &m->comm);
		if (rc)
			return rc;
		if (!pp_expr_is_string(m->comm)) {
			fprintf(stderr, "top: comm=%s of %s must be a string (char *)\n", comm,
				sel->type->name);
			return PP_ETYPE;
		}
		if (!*comm_text)
			*comm_text = comm;
	}
	if (pk && *pk && !p->printkey) {
		static const char *const vars[] = { "key" };
		rc = ana_expr_compile_vars(az, sel->type, "printkey", pk, vars, 1, &p->printkey);
		if (rc)
			return rc;
		p->printkey_type = sel->type;
	}
	return match_cols(az, sel);
}

static int top_init(struct pp_az *az)
{
	struct top_priv *p = az->priv;
	const struct top_opts *o = az->opts;
	const char *key_text = NULL, *comm_text = NULL;
	int rc;

	p->m = calloc(az->nr_sels + 1, sizeof(*p->m));
	if (!p->m)
		return -ENOMEM;
	for (size_t i = 0; i < az->nr_sels; i++) {
		rc = match_init(az, &az->sels[i], &key_text, &comm_text);
		if (rc)
			return rc;
	}
	/* keys show names only when some event names its rows; tids always do */
	p->show_comm = key_text ? comm_text != NULL : true;
	p->key_title = upper_dup(key_text ? key_text : "PID");
	p->key_width = strlen(p->key_title) < 8 ? 8 : (int)strlen(p->key_title);
	p->comm_title = upper_dup(comm_text ? comm_text : "COMM");
	p->only_comm = o->only_comm;
	if (p->only_comm && !p->show_comm) {
		fprintf(stderr, "top: --only-comm needs names: "
			"give the events a comm= attribute\n");
		return PP_EUSAGE;
	}
	/* perf-prof's top reports every second unless -i says otherwise (-i 0 too) */
	if (!az->opt.interval_ns)
		az->opt.interval_ns = 1000000000ull;
	return 0;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

#define NO_COMM_ID UINT64_MAX	/* a name from a comm= expression: compared as text */

/*
 * The row of @key and @comm (NULL: names not shown).  @comm_id is ana_comm_id()'s number
 * for @comm: a row that matched it once matches it again without comparing the text.
 */
static struct top_row *row_find(struct top_priv *p, uint64_t key, const char *comm,
				uint64_t comm_id)
{
	uint64_t slot_key = p->only_comm ? str_hash(comm) : key;
	void **slot = pp_u64map_slot(&p->rows, slot_key);
	struct top_row *r;

	for (r = *slot; r; r = r->next) {
		if (r->key != key)
			continue;
		if (!comm || (comm_id != NO_COMM_ID && r->comm_id == comm_id))
			return r;
		if (!strcmp(r->comm, comm)) {
			r->comm_id = comm_id;
			return r;
		}
	}
	r = arena_alloc(p, sizeof(*r) + p->nr_cols * sizeof(uint64_t));
	memset(r, 0, sizeof(*r) + p->nr_cols * sizeof(uint64_t));
	r->key = key;
	r->comm_id = comm_id;
	if (comm) {
		size_t n = strlen(comm) + 1;
		char *c = arena_alloc(p, n);
		memcpy(c, comm, n);
		r->comm = c;
	}
	r->next = *slot;
	*slot = r;
	if (p->nr_rows == p->cap_rows) {
		p->cap_rows = p->cap_rows ? 2 * p->cap_rows : 256;
		p->list = realloc(p->list, p->cap_rows * sizeof(*p->list));
		if (!p->list)
			abort();
	}
	p->list[p->nr_rows++] = r;
	return r;
}

static struct top_row *row_get(struct top_priv *p, uint64_t key, const char *comm,
			       uint64_t comm_id)
{
	struct top_row **c = &p->rcache[key & (TOP_RCACHE - 1)];

	if (p->only_comm)
		return row_find(p, key, comm, comm_id);
	if (*c && (*c)->key == key &&
	    (!comm || (comm_id != NO_COMM_ID && (*c)->comm_id == comm_id)))
		return *c;
	return *c = row_find(p, key, comm, comm_id);
}

static void top_event(struct pp_az *az, const struct pp_event *ev)
{
	struct top_priv *p = az->priv;
	const struct top_match *m = &p->m[ev->sel->index];
	const char *comm = NULL;
	uint64_t key, comm_id = NO_COMM_ID;
	struct top_row *r;

	if (m->key) {
		key = (uint64_t)ana_expr_eval(az, m->key, ev);
	} else {
		key = ev->tid;
		if (key == (uint32_t)-1)
			return;	/* a task that is gone */
	}
	if (p->show_comm)
		comm = m->comm ? ana_expr_eval_str(az, m->comm, ev)
			       : ana_comm_id(az->s, (uint32_t)key, &comm_id);
	if (p->only_comm)
		key = 0;
	r = row_get(p, key, comm, comm_id);
	for (size_t i = 0; i < m->nr_cols; i++) {
		const struct top_col *c = &p->cols[m->first_col + i];
		r->v[m->first_col + i] += c->e ? (uint64_t)ana_expr_eval(az, c->e, ev) : 1;
	}
	p->nr_events++;
}

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct top_row *x = *(const struct top_row *const *)a;
	const struct top_row *y = *(const struct top_row *const *)b;
	const struct top_priv *p = arg;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->nr_cols; i++) {
			if (p->cols[i].top_by != (pass == 0))
				continue;
			if (x->v[i] != y->v[i])
				return x->v[i] > y->v[i] ? -1 : 1;
		}
	}
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->comm && y->comm ? strcmp(x->comm, y->comm) : 0;
}

static void print_key(struct pp_az *az, const struct top_row *r)
{
	struct top_priv *p = az->priv;
	FILE *fp = az->out.fp;

	if (!p->printkey) {
		fprintf(fp, "%*llu ", p->key_width, (unsigned long long)r->key);
		return;
	}
	struct pp_event ev = { .type = p->printkey_type };
	uint64_t vars[1] = { r->key };
	fflush(fp);
	int64_t n = ana_expr_eval_vars(az, p->printkey, &ev, vars);
	if (n > 0 && p->key_width + 1 > n)
		fprintf(fp, "%-*s ", (int)(p->key_width - n), "");
}

static void print_text(struct pp_az *az, uint64_t now_ns)
{
	struct top_priv *p = az->priv;
	FILE *fp = az->out.fp;
	char when[48];

	ana_time_str(az->s, now_ns, when, sizeof(when));
	fprintf(fp, "%s pp-analyze - %.8s  sample %llu events\n", when,
		strlen(when) > 11 ? when + 11 : when, (unsigned long long)p->nr_events);
	if (!p->only_comm)
		fprintf(fp, "%*s ", p->key_width, p->key_title);
	for (size_t i = 0; i < p->nr_cols; i++)
		fprintf(fp, "%*s ", p->cols[i].width, p->cols[i].title);
	if (p->show_comm)
		fputs(p->comm_title, fp);
	fputc('\n', fp);
	for (size_t n = 0; n < p->nr_rows; n++) {
		const struct top_row *r = p->list[n];
		if (!p->only_comm)
			print_key(az, r);
		for (size_t i = 0; i < p->nr_cols; i++)
			fprintf(fp, "%*llu ", p->cols[i].width, (unsigned long long)r->v[i]);
		if (p->show_comm)
			fputs(r->comm, fp);
		fputc('\n', fp);
	}
}

static void print_table(struct pp_az *az, uint64_t now_ns)
{
	struct top_priv *p = az->priv;
	struct pp_table *t = pp_table_new();
	char when[48], *body = NULL;
	size_t body_sz = 0;
	FILE *mem;

	if (!p->only_comm)
		pp_table_col(t, p->key_title, "key", 0, 0);
	for (size_t i = 0; i < p->nr_cols; i++)
		pp_table_col(t, p->cols[i].title, NULL, 0, 0);
	if (p->show_comm)
		pp_table_col(t, p->comm_title, "comm", PP_COL_LEFT, 0);
	for (size_t n = 0; n < p->nr_rows; n++) {
		const struct top_row *r = p->list[n];
		pp_table_row(t);
		if (!p->only_comm)
			pp_table_u64(t, r->key);
		for (size_t i = 0; i < p->nr_cols; i++)
			pp_table_u64(t, r->v[i]);
		if (p->show_comm)
			pp_table_str(t, r->comm);
	}
	if (az->out.format == ANA_FMT_CSV) {
		pp_table_print(t, az->out.fp, PP_TABLE_CSV, NULL);
	} else {
		mem = open_memstream(&body, &body_sz);
		if (mem) {
			pp_table_print(t, mem, PP_TABLE_JSON, NULL);
			fclose(mem);
			while (body_sz && body[body_sz - 1] == '\n')
				body[--body_sz] = '\0';
			fprintf(az->out.fp, "{\"time\":\"%s\",\"events\":%llu,\"rows\":%s}\n",
				ana_time_str(az->s, now_ns, when, sizeof(when)),
				(unsigned long long)p->nr_events, body ? body : "[]");
			free(body);
		}
	}
	pp_table_free(t);
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct top_priv *p = az->priv;

	if (!p->nr_rows)
		return;	/* perf-prof prints nothing for an empty table */
	qsort_r(p->list, p->nr_rows, sizeof(*p->list), row_cmp, p);
	ana_report_header(az);	/* text: above the table; json, csv: on stderr */
	if (az->out.format == ANA_FMT_TEXT)
		print_text(az, now_ns);
	else
		print_table(az, now_ns);
	table_reset(p);
}

static void top_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
}

static int top_finish(struct pp_az *az)
{
	report(az, ana_capture_end_ns(az->s));
	fflush(az->out.fp);
	return 0;
}

/* --- mergeable state (docs/state-format.md "top") ---------------------------- */

static int row_key_cmp(const void *a, const void *b)
{
	const struct top_row *x = *(const struct top_row *const *)a;
	const struct top_row *y = *(const struct top_row *const *)b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->comm && y->comm ? strcmp(x->comm, y->comm) : 0;
}

/* The rows by key and name (canonical bytes), each with its sums; the event count. */
static int top_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct top_priv *p = az->priv;
	struct top_row **v = malloc((p->nr_rows + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (p->nr_rows) {
		memcpy(v, p->list, p->nr_rows * sizeof(*v));
		qsort(v, p->nr_rows, sizeof(*v), row_key_cmp);
	}
	pp_wire_put_varint(out, p->nr_events);
	pp_wire_put_varint(out, p->nr_cols);
	pp_wire_put_varint(out, p->nr_rows);
	for (size_t n = 0; n < p->nr_rows; n++) {
		pp_wire_put_varint(out, v[n]->key);
		if (p->show_comm)
			pp_wire_put_str(out, v[n]->comm);
		for (size_t i = 0; i < p->nr_cols; i++)
			pp_wire_put_varint(out, v[n]->v[i]);
	}
	free(v);
	return 0;
}

/* Each row adds to the row of the same key and name, as the replay's events did. */
static int top_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct top_priv *p = az->priv;
	uint64_t events = pp_wire_varint(in), cols = pp_wire_varint(in);
	size_t nr = pp_wire_count(in, 1 + p->nr_cols + p->show_comm * 2, SIZE_MAX, "rows");

	if (pp_wire_ok(in) && cols != p->nr_cols)
		return pp_wire_fail(in, PP_EBAD_RECORD, "%llu value columns, the options make %zu",
				    (unsigned long long)cols, p->nr_cols);
	for (size_t n = 0; n < nr && pp_wire_ok(in); n++) {
		uint64_t key = pp_wire_varint(in);
		const char *comm = p->show_comm ? pp_wire_str(in) : NULL;
		struct top_row *r;

		if (!pp_wire_ok(in))
			break;
		if (p->only_comm && key)
			return pp_wire_fail(in, PP_EBAD_RECORD, "row %zu: a key with --only-comm", n);
		r = row_find(p, key, comm, NO_COMM_ID);
		for (size_t i = 0; i < p->nr_cols; i++)
			r->v[i] += pp_wire_varint(in);
	}
	p->nr_events += events;
	return in->err;
}

static void top_release(struct pp_az *az)
{
	struct top_priv *p = az->priv;

	for (size_t i = 0; p->m && i < az->nr_sels; i++) {
		pp_expr_free(p->m[i].key);
		pp_expr_free(p->m[i].comm);
	}
	for (size_t i = 0; i < p->nr_cols; i++) {
		free(p->cols[i].title);
		pp_expr_free(p->cols[i].e);
	}
	pp_expr_free(p->printkey);
	free(p->cols);
	free(p->m);
	free(p->key_title);
	free(p->comm_title);
	free(p->list);
	pp_u64map_release(&p->rows);
	while (p->chunks) {
		struct top_chunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
}


const struct pp_analyzer_ops az_top_ops = {
	.summary = "key/value counters in top mode: events, sums and names per key",
	.usage = "pp-analyze FILE top -e EVENT[//key=EXPR/top-by=EXPR/top-add=EXPR/comm=EXPR/"
		 "printkey=EXPR/alias=NAME/][,EVENT...] [-k EXPR] [--only-comm] [-i MS (1000)]",
	.examples =
		"  pp-analyze pp.capture top -e sched:sched_switch          # switches per thread\n"
		"  pp-analyze pp.capture top -e 'kvm:kvm_exit//key=exit_reason/' -i 1000\n"
		"  pp-analyze pp.capture top -e 'irq:irq_handler_entry//key=irq/' -C 0\n"
		"  pp-analyze pp.capture top -e 'sched:sched_stat_runtime//key=pid/comm=comm/"
		"top-by=\"runtime/1000\"/alias=run(us)/' -i 1000\n"
		"  pp-analyze pp.capture top -e 'sched:sched_stat_runtime//key=pid/comm=comm/"
		"top-by=runtime/,sched:sched_switch//key=prev_pid/comm=prev_comm/'\n"
		"  pp-analyze pp.capture top -e 'sched:sched_process_exec//key=pid/comm=filename/' "
		"--only-comm\n"
		"  pp-analyze pp.capture top -e 'workqueue:workqueue_execute_start//key=common_pid/"
		"alias=NUM/comm=ksymbol(function)/' --only-comm\n",
	.help_attrs = "alias=./top-by=./top-add=./key=./comm=./printkey=./",
	.priv_size = sizeof(struct top_priv),
	.flags = PP_AZ_NEED_EVENTS | PP_AZ_STATE_CUT,
	.init = top_init,
	.event = top_event,
	.interval = top_interval,
	.finish = top_finish,
	.release = top_release,
	.state_version = 1,
	.state_write = top_state_write,
	.state_read = top_state_read,
};
