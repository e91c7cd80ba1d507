/* SPDX-License-Identifier: MIT */
/*
 * hwtab.c - the hardware-counter tables of hwstat, llcstat and tlbstat.
 *
 * The counter readings of the analyzer's built-in events go into the count
 * engine (slots.c) per CPU; each complete round becomes one row per CPU,
 * whose columns the analyzer's table describes (struct ana_hwtab_col: counts,
 * ratios and hit rates of the round, and the RUN% of its first event,
 * time_running / time_enabled, below 100 when the kernel multiplexed the
 * counters).  Text: perf-prof's layout, a time line then
 * "[CPU] ..." and "[000] ..." rows; JSON: one object a row with "time" and
 * "cpu" first; CSV: the same columns, the header once.  Samples of the same
 * events (a capture that sampled cycles) are not counts: they are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"

/* The counts of one CPU (or thread) in one round. */
struct hwtab_counts {
	uint32_t ins;
	bool thread;			/* @ins is a thread (counters read per thread) */
	const uint64_t *d;		/* d[i]: the count of built-in event i */
	double run_pct;			/* time_running / time_enabled of event 0 in % (0: never enabled) */
};

static struct ana_hwtab *hwtab(struct pp_az *az)
{
	return az->priv;
}

static double hit_pct(uint64_t access, uint64_t miss)
{
	return access > miss ? (double)(access - miss) * 100.0 / (double)access : 0.0;
}

/* Column @col's value of @k: an integer in *@u, or a real. Return: whether real. */
static bool col_value(const struct ana_hwtab_col *col, const struct hwtab_counts *k, uint64_t *u,
		      double *f)
{
	uint64_t a = k->d[col->a], b = k->d[col->b];

	switch (col->kind) {
	case ANA_HWTAB_COUNT:
	case ANA_HWTAB_TEXT:
		*u = a;
		return false;
	case ANA_HWTAB_RATIO:
		*f = b ? (double)a / (double)b : 0.0;
		return true;
	case ANA_HWTAB_HIT:
		*f = hit_pct(a, b);
		return true;
	case ANA_HWTAB_RUN:
		*f = k->run_pct;
		return true;
	}
	return false;
}

/* @k's columns in the text layout, after "[NNN]", with the newline. */
static void put_text(struct pp_buf *b, const struct ana_hwtab_ops *t, const struct hwtab_counts *k)
{
	if (t->row_lead)
		pp_buf_adds(b, t->row_lead);
	for (size_t i = 0; i < t->nr_cols; i++) {
		const struct ana_hwtab_col *col = &t->cols[i];
		uint64_t u = 0;
		double f = 0;
		bool real = col_value(col, k, &u, &f);

		pp_buf_adds(b, col->sep);
		if (col->kind == ANA_HWTAB_TEXT)
			pp_buf_adds(b, col->text);
		else if (!real)
			pp_buf_addf(b, "%*llu", col->width, (unsigned long long)u);
		else if (col->kind == ANA_HWTAB_RATIO)
			pp_buf_addf(b, "%*.2f", col->width, f);
		else
			pp_buf_addf(b, "%*.2f%%", col->width - 1, f);
	}
	pp_buf_addch(b, '\n');
}

/* The text head after "[CPU]", with its newline. */
static void put_head(struct pp_buf *b, const struct ana_hwtab_ops *t)
{
	if (t->head_lead)
		pp_buf_adds(b, t->head_lead);
	for (size_t i = 0; i < t->nr_cols; i++)
		pp_buf_addf(b, "%s%*s", t->cols[i].sep, t->cols[i].width, t->cols[i].head);
	pp_buf_addch(b, '\n');
}

/* @k's keyed columns: ",key:value" (JSON) or ",value" (CSV). */
static void put_vals(struct pp_buf *b, const struct ana_hwtab_ops *t, const struct hwtab_counts *k,
		     bool json)
{
	for (size_t i = 0; i < t->nr_cols; i++) {
		const struct ana_hwtab_col *col = &t->cols[i];
		uint64_t u = 0;
		double f = 0;

		if (!col->key)
			continue;
		pp_buf_addch(b, ',');
		if (json) {
			pp_buf_add_json_str(b, col->key);
			pp_buf_addch(b, ':');
		}
		if (col_value(col, k, &u, &f))
			pp_buf_addf(b, "%.2f", f);
		else
			pp_buf_addf(b, "%llu", (unsigned long long)u);
	}
}

/* One row: text after "[NNN]", or a JSON object, or a CSV line (after the header). */
static void put_row(struct pp_az *az, struct ana_hwtab *h, const struct hwtab_counts *k,
		    const char *when)
{
	bool thread = k->thread;

	switch (az->out.format) {
	case ANA_FMT_TEXT:
		pp_buf_addf(&h->text, thread ? "[%6u]" : "[%03u]", k->ins);
		put_text(&h->text, h->ops, k);
		break;
	case ANA_FMT_JSON:
		pp_buf_addf(&h->text, "{\"time\":\"%s\",\"%s\":%u", when, thread ? "tid" : "cpu",
			    k->ins);
		put_vals(&h->text, h->ops, k, true);
		pp_buf_adds(&h->text, "}\n");
		break;
	case ANA_FMT_CSV:
		if (!h->csv_head) {
			pp_buf_addf(&h->text, "time,%s", ana_cnt_threads(h->c) ? "tid" : "cpu");
			for (size_t i = 0; i < h->ops->nr_cols; i++)
				if (h->ops->cols[i].key)
					pp_buf_addf(&h->text, ",%s", h->ops->cols[i].key);
			pp_buf_addch(&h->text, '\n');
			h->csv_head = true;
		}
		pp_buf_addf(&h->text, "%s,%u", when, k->ins);
		put_vals(&h->text, h->ops, k, false);
		pp_buf_addch(&h->text, '\n');
		break;
	}
}

static void hwtab_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct ana_hwtab *h = hwtab(az);
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	char when[48];

	ana_time_str(az->s, end_ns, when, sizeof(when));
	pp_buf_reset(&h->text);
	if (az->out.format == ANA_FMT_TEXT) {
		/* perf-prof's print_time(): the time and a blank */
		pp_buf_addf(&h->text, "%s \n[%s]", when, ana_cnt_threads(c) ? "THREAD" : "CPU");
		put_head(&h->text, h->ops);
	}
	/* rows are sorted by (thread?, instance, event): one table row per instance */
	for (size_t k = 0; k < nr;) {
		struct hwtab_counts counts = { .ins = rows[k].ins, .thread = rows[k].thread,
						   .d = h->d };

		memset(h->d, 0, h->nr_events * sizeof(*h->d));
		for (; k < nr && rows[k].ins == counts.ins && rows[k].thread == counts.thread; k++) {
			const struct ana_cnt_row *r = &rows[k];

			if (r->ev < h->nr_events)
				h->d[r->ev] = r->sum;
			if (r->ev == 0 && r->enabled)
				counts.run_pct = (double)r->running * 100.0 / (double)r->enabled;
		}
		put_row(az, h, &counts, when);
	}
	fputs(pp_buf_str(&h->text), az->out.fp);
}

int ana_hwtab_init(struct pp_az *az, const struct ana_hwtab_ops *ops)
{
	struct ana_hwtab *h = hwtab(az);
	struct ana_cnt_opts o = { az->opt.period_ns, az->opt.interval_ns, true, hwtab_round };

	h->ops = ops;
	while (ops->events[h->nr_events])
		h->nr_events++;
	for (size_t i = 0; i < ops->nr_cols; i++)
		PP_BUG_ON(ops->cols[i].a >= h->nr_events || ops->cols[i].b >= h->nr_events);
	h->d = pp_xcalloc(h->nr_events, sizeof(*h->d));
	h->c = ana_cnt_new(az, &o);
	return h->c ? 0 : PP_EUSAGE;
}

void ana_hwtab_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ana_hwtab *h = hwtab(az);

	if (!ev->count || ev->sel->pos >= h->nr_events)
		return;
	h->nr_readings++;
	ana_cnt_feed(h->c, ev, ev->sel->pos, ev->count->d_value);
}

int ana_hwtab_finish(struct pp_az *az)
{
	struct ana_hwtab *h = hwtab(az);
	bool states;

	if (!h->c)
		return 0;
	states = !ana_cnt_keep_empty(ana_cnt_kept(h->c));	/* a report of states */
	ana_cnt_finish(h->c);
	if (!h->nr_readings && !states)
		pp_warn("%s: the capture has no counter readings of its events (record them with "
			"pp-record --for %s)", az->name, az->name);
	return 0;
}

void ana_hwtab_release(struct pp_az *az)
{
	struct ana_hwtab *h = hwtab(az);

	ana_cnt_free(h->c);
	free(h->d);
	pp_buf_release(&h->text);
	*h = (struct ana_hwtab){ 0 };
}
