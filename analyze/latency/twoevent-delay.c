/* SPDX-License-Identifier: MIT */
/*
 * twoevent-delay.c - the delay, syscalls and pair implementations of the engine.
 *
 * delay: t2 - t1 (when t2 > t1) goes into a latency row per (key with
 * --perins else 0, pair); each interval prints perf-prof's table
 * (start => end, calls, total, min, p50, p95, p99, max in us, than(reqs)
 * with --than) sorted by key then total, and resets it; --than/--lower
 * print the pair (twoevent-detail.c), --heatmap appends "time delta" lines.
 * syscalls: the same rows per (thread with --perins, syscall id), with avg
 * and errors (ret in -4095..-1) instead of percentiles; a sys_enter left
 * open when its thread exits counts up to the exit.  pair: paired and
 * unpaired counts per pair; unpaired event1s are printed at a loss or at
 * the end (with --state-out at the end only).  Percentiles come from struct pp_hist (within 0.4 %).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/latency/internal.h"
#include "common/table.h"

#define TASK_COMM_LEN 16

/* --- latency rows ------------------------------------------------------------ */

struct te_lat *ana_te_lat_get(struct ana_te *te, uint64_t ins, uint64_t id, bool hist)
{
	void **oslot = pp_u64map_slot(&te->lat, ins);
	struct pp_u64map *inner = *oslot;
	void **slot;
	struct te_lat *l;

	if (!inner)
		inner = *oslot = pp_xcalloc(1, sizeof(*inner));
	slot = pp_u64map_slot(inner, id);
	l = *slot;
	if (!l) {
		l = *slot = pp_xcalloc(1, sizeof(*l));
		l->ins = ins;
		l->id = id;
		l->min = UINT64_MAX;
		l->has_hist = hist;
		te->nr_lat++;
	}
	return l;
}

struct te_lat *ana_te_lat_input(struct ana_te *te, uint64_t ins, uint64_t id, uint64_t v, bool hist)
{
	struct te_lat *l = ana_te_lat_get(te, ins, id, hist);

	if (hist) {
		if (l->n < TE_LAT_EXACT) {
			l->exact[l->n] = v;
		} else {
			if (!l->in_hist) {
				pp_hist_init(&l->hist);
				for (unsigned i = 0; i < TE_LAT_EXACT; i++)
					pp_hist_add(&l->hist, l->exact[i]);
				l->in_hist = true;
			}
			pp_hist_add(&l->hist, v);
		}
	}
	l->n++;
	l->sum += v;
	if (v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	if (te->than_ns && v > te->than_ns)
		l->than++;
	return l;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile @p of row @l: exact while it holds few values. */
uint64_t ana_te_lat_pct(struct te_lat *l, double p)
{
	uint64_t v[TE_LAT_EXACT];
	uint64_t rank;

	if (l->in_hist)
		return pp_hist_percentile(&l->hist, p);
	if (!l->n)
		return 0;
	memcpy(v, l->exact, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), cmp_u64);
	rank = (uint64_t)(p / 100.0 * (double)l->n + 0.999999999);
	return v[rank ? rank - 1 : 0];
}

static int cmp_sorted(const void *a, const void *b)
{
	const struct te_lat *x = *(struct te_lat *const *)a, *y = *(struct te_lat *const *)b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_unsorted(const void *a, const void *b)
{
	const struct te_lat *x = *(struct te_lat *const *)a, *y = *(struct te_lat *const *)b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every row: by key then total descending (@sorted), or by key then pair id. */
struct te_lat **ana_te_lat_collect(struct ana_te *te, size_t *nr, bool sorted)
{
	struct te_lat **v = pp_xmalloc((te->nr_lat + 1) * sizeof(*v));
	size_t it = 0, n = 0;
	uint64_t k;
	void *inner;

	while (pp_u64map_next(&te->lat, &it, &k, &inner)) {
		size_t jt = 0;
		void *l;
		while (pp_u64map_next(inner, &jt, &k, &l))
			v[n++] = l;
	}
	qsort(v, n, sizeof(*v), sorted ? cmp_sorted : cmp_unsorted);
	*nr = n;
	return v;
}

void ana_te_lat_reset(struct ana_te *te)
{
	size_t it = 0;
	uint64_t k;
	void *inner;

	while (pp_u64map_next(&te->lat, &it, &k, &inner)) {
		size_t jt = 0;
		void *l;
		while (pp_u64map_next(inner, &jt, &k, &l)) {
			if (((struct te_lat *)l)->in_hist)
				pp_hist_release(&((struct te_lat *)l)->hist);
			free(l);
		}
		pp_u64map_release(inner);
		free(inner);
	}
	pp_u64map_release(&te->lat);
	te->nr_lat = 0;
}

static bool lat_any_than(struct ana_te *te)
{
	size_t it = 0;
	uint64_t k;
	void *inner;

	while (pp_u64map_next(&te->lat, &it, &k, &inner)) {
		size_t jt = 0;
		void *l;
		while (pp_u64map_next(inner, &jt, &k, &l))
			if (((struct te_lat *)l)->than)
				return true;
	}
	return false;
}

static void than_cell(struct ana_te *te, const struct te_lat *l, struct pp_buf *b)
{
	unsigned long long pct = l->than * 100 / (l->n ? l->n : 1);

	if (l->than && te->fp == te->az->out.fp && ana_out_tty(&te->az->out))
		pp_buf_addf(b, " " ANA_HL_ON "%6llu (%3llu%%)" ANA_HL_OFF, (unsigned long long)l->than,
			    pct);
	else
		pp_buf_addf(b, " %6llu (%3llu%%)", (unsigned long long)l->than, pct);
}

/* The key (and comm) cells of a --perins row. */
static void key_cells(struct ana_te *te, uint64_t ins, int keylen, struct pp_buf *b)
{
	if (te->printkey) {
		/* printkey=printf(...) prints the key: catch it to pad the column */
		struct pp_event none = { 0 };
		FILE *out = te->az->out.fp;
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		if (mem) {
			te->az->out.fp = mem;
			ana_expr_eval_vars(te->az, te->printkey, &none, &ins);
			te->az->out.fp = out;
			fclose(mem);
			pp_buf_addf(b, "%-*s ", keylen, text);
			free(text);
		}
	} else {
		pp_buf_addf(b, "%-*llu ", keylen, (unsigned long long)ins);
	}
	if (te->comm)
		pp_buf_addf(b, "%-*.*s ", TASK_COMM_LEN, TASK_COMM_LEN,
			    ana_comm(te->s, (uint32_t)ins));
}

static void dashes(struct pp_buf *b, int n)
{
	while (n-- > 0)
		pp_buf_addch(b, '-');
}

/* --- delay --------------------------------------------------------------------- */

static int delay_init(struct ana_te *te)
{
	const char *hm = te->az->opt.heatmap;

	if (!hm || !*hm)
		return 0;
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct te_pair *p = te->pairs[i];
		char path[1024];
		if (!p->tp2)
			continue;
		snprintf(path, sizeof(path), "%s-%s-%s.lat", hm, p->tp1->name, p->tp2->name);
		p->heatmap = fopen(path, "w");
		if (!p->heatmap) {
			pp_err("%s: cannot create heatmap file '%s': %m", te->az->name, path);
			return -1;
		}
	}
	return 0;
}

static void delay_two(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		      struct te_iter *it)
{
	uint64_t delta;

	if (!e2 || e2->ev.time_ns <= e1->ev.time_ns)
		return;
	delta = e2->ev.time_ns - e1->ev.time_ns;
	ana_te_lat_input(te, te->perins ? e2->key : 0, p->id, delta, true);
	if (p->heatmap)
		fprintf(p->heatmap, "%llu %llu\n", (unsigned long long)e2->ev.time_ns,
			(unsigned long long)delta);
	if ((te->than_ns && delta > te->than_ns) || (te->lower_ns && delta < te->lower_ns))
		ana_te_print_pair(te, p, e1, e2, delta, it);
}

static bool delay_remaining(struct ana_te *te, struct te_pair *p, struct te_node *e1, int reason,
			    struct te_iter *it)
{
	uint64_t delta;

	if (!te->than_ns || !it)
		return false;
	delta = te->recent_ns - e1->ev.time_ns;
	if (delta > te->than_ns)
		ana_te_print_unfinished(te, p, e1, delta, it);
	return true;
}

static void delay_header(struct ana_te *te, struct pp_buf *b, bool than)
{
	if (te->perins) {
		pp_buf_addf(b, "%-*s ", te->keylen, te->keyname);
		if (te->comm)
			pp_buf_addf(b, "%-*s ", TASK_COMM_LEN, "comm");
	}
	pp_buf_addf(b, "%*s => %-*s", te->max_len1, "start", te->max_len2, "end");
	pp_buf_addf(b, " %8s %16s %12s %12s %12s %12s %12s", "calls", "total(us)", "min(us)",
		    "p50(us)", "p95(us)", "p99(us)", "max(us)");
	pp_buf_adds(b, than ? "    than(reqs)\n" : "\n");
	if (te->perins) {
		dashes(b, te->keylen);
		pp_buf_addch(b, ' ');
		if (te->comm) {
			dashes(b, TASK_COMM_LEN);
			pp_buf_addch(b, ' ');
		}
	}
	dashes(b, te->max_len1);
	pp_buf_adds(b, "    ");
	dashes(b, te->max_len2);
	pp_buf_addf(b, " %8s %16s %12s %12s %12s %12s %12s", "--------", "----------------",
		    "------------", "------------", "------------", "------------", "------------");
	pp_buf_adds(b, than ? " --------------\n" : "\n");
}

static void table_cols(struct ana_te *te, struct pp_table *t, bool avg, bool than)
{
	pp_table_col(t, "time", NULL, PP_COL_LEFT, 0);
	if (te->perins) {
		pp_table_col(t, te->keyname, "key", 0, 0);
		if (te->comm)
			pp_table_col(t, "comm", NULL, PP_COL_LEFT, 0);
	}
	if (te->impl_id == ANA_TE_SYSCALLS) {
		pp_table_col(t, "syscalls", "syscall", PP_COL_LEFT, 0);
		pp_table_col(t, "id", NULL, 0, 0);
	} else {
		pp_table_col(t, "start", NULL, 0, 0);
		pp_table_col(t, "end", NULL, PP_COL_LEFT, 0);
	}
	pp_table_col(t, "calls", NULL, 0, 0);
	pp_table_col(t, "total(us)", "total_us", 0, 0);
	pp_table_col(t, "min(us)", "min_us", 0, 0);
	if (avg) {
		pp_table_col(t, "avg(us)", "avg_us", 0, 0);
	} else {
		pp_table_col(t, "p50(us)", "p50_us", 0, 0);
		pp_table_col(t, "p95(us)", "p95_us", 0, 0);
		pp_table_col(t, "p99(us)", "p99_us", 0, 0);
	}
	pp_table_col(t, "max(us)", "max_us", 0, 0);
	if (avg)
		pp_table_col(t, "err", NULL, 0, 0);
	if (than)
		pp_table_col(t, "than(reqs)", "than", 0, 0);
}

static void table_row(struct ana_te *te, struct pp_table *t, struct te_lat *l,
		      const char *when, bool avg, bool than)
{
	pp_table_row(t);
	pp_table_str(t, when);
	if (te->perins) {
		pp_table_u64(t, l->ins);
		if (te->comm)
			pp_table_str(t, ana_comm(te->s, (uint32_t)l->ins));
	}
	if (te->impl_id == ANA_TE_SYSCALLS) {
		const char *nm = ana_syscall_name(te->s, l->id);
		pp_table_str(t, nm ? nm : "");
		pp_table_u64(t, l->id);
	} else {
		struct te_pair *p = te->pairs[l->id];
		pp_table_str(t, p->tp1->name);
		pp_table_str(t, p->tp2 ? p->tp2->name : "");
	}
	pp_table_u64(t, l->n);
	pp_table_num(t, "%.3f", l->sum / 1000.0);
	pp_table_num(t, "%.3f", (l->n ? l->min : 0) / 1000.0);
	if (avg) {
		pp_table_num(t, "%.3f", (double)(l->sum / (l->n ? l->n : 1)) / 1000.0);
	} else {
		pp_table_num(t, "%.3f", ana_te_lat_pct(l, 50) / 1000.0);
		pp_table_num(t, "%.3f", ana_te_lat_pct(l, 95) / 1000.0);
		pp_table_num(t, "%.3f", ana_te_lat_pct(l, 99) / 1000.0);
	}
	pp_table_num(t, "%.3f", l->max / 1000.0);
	if (avg)
		pp_table_u64(t, l->err);
	if (than)
		pp_table_u64(t, l->than);
}

/* --format json|csv: the same rows as a table named after the analyzer. */
static void print_machine(struct ana_te *te, uint64_t now_ns, struct te_lat **v, size_t nr,
			  bool avg)
{
	struct pp_table *t = pp_table_new();
	bool than = te->than_ns != 0;
	char wall[48];

	ana_time_str(te->s, now_ns, wall, sizeof(wall));
	table_cols(te, t, avg, than);
	for (size_t i = 0; i < nr; i++)
		table_row(te, t, v[i], wall, avg, than);
	pp_table_print(t, te->fp, te->az->out.format == ANA_FMT_JSON ? PP_TABLE_JSON : PP_TABLE_CSV,
		       te->az->name);
	pp_table_free(t);
}

/* A latency table's text: its head (with the newline) and one row's cells before --than's. */
typedef void (*lat_head_fn)(struct ana_te *te, struct pp_buf *b, bool than);
typedef void (*lat_row_fn)(struct ana_te *te, struct te_lat *l, struct pp_buf *b);

/*
 * The latency table of the interval ending at @now_ns (delay's, or syscalls' with
 * its average and errors: @syscalls), then its rows reset.
 */
static void lat_print(struct ana_te *te, uint64_t now_ns, bool syscalls, lat_head_fn head,
		      lat_row_fn row)
{
	bool than = te->than_ns != 0;
	struct pp_buf *b = &te->scratch;
	struct te_lat **v;
	size_t nr;

	v = ana_te_lat_collect(te, &nr, syscalls || !te->cfg.nested);
	if (!te->text) {
		print_machine(te, now_ns, v, nr, syscalls);
		goto out;
	}
	ana_report_header(te->az);
	ana_te_print_time_line(te, now_ns);
	pp_buf_reset(b);
	head(te, b, than);
	for (size_t i = 0; i < nr; i++) {
		row(te, v[i], b);
		if (than)
			than_cell(te, v[i], b);
		pp_buf_addch(b, '\n');
	}
	if (te->fp == te->az->out.fp)
		ana_out_puts(&te->az->out, pp_buf_str(b));	/* --than's highlight on a terminal */
	else
		fputs(pp_buf_str(b), te->fp);
out:
	free(v);
	ana_te_lat_reset(te);
}

static void delay_row(struct ana_te *te, struct te_lat *l, struct pp_buf *b)
{
	const struct te_pair *p = te->pairs[l->id];

	if (te->perins)
		key_cells(te, l->ins, te->keylen, b);
	pp_buf_addf(b, "%*s => %-*s", te->max_len1, p->tp1->name, te->max_len2,
		    p->tp2 ? p->tp2->name : "");
	pp_buf_addf(b, " %8llu %16.3f %12.3f %12.3f %12.3f %12.3f %12.3f",
		    (unsigned long long)l->n, l->sum / 1000.0, l->min / 1000.0,
		    ana_te_lat_pct(l, 50) / 1000.0,
		    ana_te_lat_pct(l, 95) / 1000.0,
		    ana_te_lat_pct(l, 99) / 1000.0, l->max / 1000.0);
}

static void delay_print(struct ana_te *te, uint64_t now_ns)
{
	if (!te->nr_lat)
		return;
	if (te->only_than && !lat_any_than(te))
		return;	/* perf-prof keeps the rows for the next interval */
	lat_print(te, now_ns, false, delay_header, delay_row);
}

const struct te_impl_ops ana_te_delay_ops = {
	.name = "delay",
	.state_write = ana_te_lat_state_write,
	.state_read = ana_te_lat_state_read,
	.init = delay_init,
	.two = delay_two,
	.remaining = delay_remaining,
	.print = delay_print,
};

/* --- syscalls ------------------------------------------------------------------ */

static int syscalls_init(struct ana_te *te)
{
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		const struct te_pair *p = te->pairs[i];
		const struct ana_evtype *t1 = p->tp1->sel->type;
		const struct ana_evtype *t2 = p->tp2 ? p->tp2->sel->type : NULL;
		if (strcmp(t1->name, "raw_syscalls:sys_enter") ||
		    (t2 && strcmp(t2->name, "raw_syscalls:sys_exit"))) {
			pp_err("%s: please use -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit",
			       te->az->name);
			return -1;
		}
	}
	return delay_init(te);
}

static void syscalls_two(struct ana_te *te, struct te_pair *p, struct te_node *e1,
			 struct te_node *e2, struct te_iter *it)
{
	uint64_t id1 = 0, id2 = 0, pid1 = 0, pid2 = 0, ret = 0, delta;
	struct te_lat *l;

	if (!e2 || e2->ev.time_ns <= e1->ev.time_ns)
		return;
	delta = e2->ev.time_ns - e1->ev.time_ns;
	ana_field_u64(&e1->ev, "id", &id1);
	ana_field_u64(&e2->ev, "id", &id2);
	ana_field_u64(&e1->ev, "common_pid", &pid1);
	ana_field_u64(&e2->ev, "common_pid", &pid2);
	ana_field_u64(&e2->ev, "ret", &ret);
	if ((uint32_t)pid1 != (uint32_t)pid2 || id1 != id2)
		return;
	l = ana_te_lat_input(te, te->perins ? (uint32_t)pid1 : 0, id1, delta, false);
	l->err += ret >= (uint64_t)-4095;
	if (p->heatmap)
		fprintf(p->heatmap, "%llu %llu\n", (unsigned long long)e2->ev.time_ns,
			(unsigned long long)delta);
	if (te->than_ns && delta > te->than_ns) {
		ana_te_print_event(te, e1, NULL);
		ana_te_print_event(te, e2, NULL);
	}
}

static bool syscalls_remaining(struct ana_te *te, struct te_pair *p, struct te_node *e1, int reason,
			       struct te_iter *it)
{
	uint64_t id = 0, pid = 0, delta;
	char wall[48], ts[32];

	if (reason == TE_RR_LOST)
		return false;
	if (te->recent_ns <= e1->ev.time_ns)
		return true;
	delta = te->recent_ns - e1->ev.time_ns;
	ana_field_u64(&e1->ev, "id", &id);
	ana_field_u64(&e1->ev, "common_pid", &pid);
	ana_te_lat_input(te, te->perins ? (uint32_t)pid : 0, id, delta, false);
	if (p->heatmap)
		fprintf(p->heatmap, "%llu %llu\n", (unsigned long long)te->recent_ns,
			(unsigned long long)delta);
	if (te->than_ns && delta > te->than_ns && te->text) {
		ana_te_print_event(te, e1, NULL);
		fprintf(te->fp, "%s %16s %6u .... [%03u] %s: sched:sched_process_free: "
			"comm=%s pid=%u\n", ana_time_str(te->s, te->recent_ns, wall, sizeof(wall)),
			ana_comm(te->s, 0), 0, e1->ev.cpu,
			ana_ts_str(te->recent_ns, ts, sizeof(ts)),
			ana_comm(te->s, e1->ev.tid), e1->ev.tid);
	}
	return true;
}

static void syscalls_header(struct ana_te *te, struct pp_buf *b, bool than)
{
	if (te->perins)
		pp_buf_addf(b, "thread %-*s ", TASK_COMM_LEN, "comm");
	pp_buf_addf(b, "%-20s", "syscalls");
	pp_buf_addf(b, " %8s %16s %12s %12s %12s %6s", "calls", "total(us)", "min(us)", "avg(us)",
		    "max(us)", "err");
	pp_buf_adds(b, than ? "   than(reqs)\n" : "\n");
	if (te->perins) {
		pp_buf_adds(b, "------ ");
		dashes(b, TASK_COMM_LEN);
		pp_buf_addch(b, ' ');
	}
	dashes(b, 20);
	pp_buf_addf(b, " %8s %16s %12s %12s %12s %6s", "--------", "----------------",
		    "------------", "------------", "------------", "------");
	pp_buf_adds(b, than ? " --------------\n" : "\n");
}

static void syscalls_row(struct ana_te *te, struct te_lat *l, struct pp_buf *b)
{
	const char *nm = ana_syscall_name(te->s, l->id);
	char name[64];

	if (te->perins)
		pp_buf_addf(b, "%-6llu %-*.*s ", (unsigned long long)l->ins, TASK_COMM_LEN,
			    TASK_COMM_LEN, ana_comm(te->s, (uint32_t)l->ins));
	if (nm)
		snprintf(name, sizeof(name), "%s(%llu)", nm, (unsigned long long)l->id);
	else
		snprintf(name, sizeof(name), "%llu", (unsigned long long)l->id);
	pp_buf_addf(b, "%-20s %8llu %16.3f %12.3f %12.3f %12.3f %6llu", name,
		    (unsigned long long)l->n, l->sum / 1000.0, l->min / 1000.0,
		    (double)(l->sum / l->n) / 1000.0, l->max / 1000.0,
		    (unsigned long long)l->err);
}

static void syscalls_print(struct ana_te *te, uint64_t now_ns)
{
	if (te->nr_lat)
		lat_print(te, now_ns, true, syscalls_header, syscalls_row);
}

const struct te_impl_ops ana_te_syscalls_ops = {
	.name = "syscalls",
	.state_write = ana_te_lat_state_write,
	.state_read = ana_te_lat_state_read,
	.init = syscalls_init,
	.two = syscalls_two,
	.remaining = syscalls_remaining,
	.print = syscalls_print,
};

/* --- pair ---------------------------------------------------------------------- */

static void pair_two(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		     struct te_iter *it)
{
	p->paired++;
}

static bool pair_remaining(struct ana_te *te, struct te_pair *p, struct te_node *e1, int reason,
			   struct te_iter *it)
{
	p->unpaired++;
	/* a state lists those left at the end only: a loss's are counted */
	if (reason == TE_RR_EXIT || !ana_te_stateful(te))
		ana_te_print_event(te, e1, NULL);
	return true;
}

static void pair_print(struct ana_te *te, uint64_t now_ns)
{
	char wall[48];

	ana_time_str(te->s, now_ns, wall, sizeof(wall));
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct te_pair *p = te->pairs[i];
		const char *n1 = p->tp1->sel->type->name;
		if (!te->text) {
			fprintf(te->fp, "{\"%s\":{\"time\":\"%s\",\"event1\":\"%s\","
				"\"event2\":\"%s\",\"%s\":%llu}}\n", te->az->name, wall, n1,
				p->tp2 ? p->tp2->sel->type->name : "",
				p->tp2 ? "paired" : "unpaired",
				(unsigned long long)(p->tp2 ? p->paired : p->unpaired));
		} else if (p->tp2) {
			fprintf(te->fp, "%s %s %s paired %llu\n", wall, n1, p->tp2->sel->type->name,
				(unsigned long long)p->paired);
		} else {
			fprintf(te->fp, "%s %s unpaired %llu\n", wall, n1,
				(unsigned long long)p->unpaired);
		}
		p->paired = p->unpaired = 0;
	}
}

const struct te_impl_ops ana_te_pair_ops = {
	.name = "pair",
	.state_write = ana_te_pair_state_write,
	.state_read = ana_te_pair_state_read,
	.two = pair_two,
	.remaining = pair_remaining,
	.print = pair_print,
};
