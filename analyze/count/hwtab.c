/* SPDX-License-Identifier: MIT */
/*
 * hwtab.c - the hardware-counter tables of hwstat, llcstat and tlbstat.
 *
 * The counter readings of the analyzer's built-in events go into the count
 * engine (slots.c) per CPU; each complete round becomes one row per CPU,
 * which the analyzer's row() makes from the round's counts and the RUN% of
 * its first event (time_running / time_enabled, below 100 when the kernel
 * multiplexed the counters).  Text: perf-prof's layout, a time line then
 * "[CPU] ..." and "[000] ..." rows; JSON: one object a row with "time" and
 * "cpu" first; CSV: the same columns, the header once.  Samples of the same
 * events (a capture that sampled cycles) are not counts: they are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"

struct hwtab {
	const struct ana_hwtab_ops *ops;
	struct ana_cnt *c;
	uint64_t *d;			/* ops->nr_events counts of one row */
	uint64_t nr_readings;
	bool csv_head;
	struct pp_buf text, line;
};

static struct hwtab *hwtab(struct pp_az *az)
{
	return *(struct hwtab **)az->priv;
}

static void put_vals(struct pp_buf *b, const struct ana_hwtab_val *v, size_t n, bool json)
{
	for (size_t i = 0; i < n; i++) {
		if (json) {
			pp_buf_addch(b, ',');
			pp_buf_add_json_str(b, v[i].key);
			pp_buf_addch(b, ':');
		} else {
			pp_buf_addch(b, ',');
		}
		if (v[i].real)
			pp_buf_addf(b, "%.2f", v[i].f);
		else
			pp_buf_addf(b, "%llu", (unsigned long long)v[i].u);
	}
}

/* One row: text after "[NNN]", or a JSON object, or a CSV line (after the header). */
static void put_row(struct pp_az *az, struct hwtab *h, const struct ana_hwtab_counts *k,
		    const char *when)
{
	struct ana_hwtab_val v[ANA_HWTAB_MAX_VALS];
	bool thread = k->thread;
	size_t n;

	pp_buf_reset(&h->line);
	n = h->ops->row(k, &h->line, v);
	PP_BUG_ON(n > ANA_HWTAB_MAX_VALS);
	switch (az->out.format) {
	case ANA_FMT_TEXT:
		pp_buf_addf(&h->text, thread ? "[%6u]" : "[%03u]", k->ins);
		pp_buf_adds(&h->text, pp_buf_str(&h->line));
		break;
	case ANA_FMT_JSON:
		pp_buf_addf(&h->text, "{\"time\":\"%s\",\"%s\":%u", when, thread ? "tid" : "cpu",
			    k->ins);
		put_vals(&h->text, v, n, true);
		pp_buf_adds(&h->text, "}\n");
		break;
	case ANA_FMT_CSV:
		if (!h->csv_head) {
			pp_buf_addf(&h->text, "time,%s", ana_cnt_threads(h->c) ? "tid" : "cpu");
			for (size_t i = 0; i < n; i++)
				pp_buf_addf(&h->text, ",%s", v[i].key);
			pp_buf_addch(&h->text, '\n');
			h->csv_head = true;
		}
		pp_buf_addf(&h->text, "%s,%u", when, k->ins);
		put_vals(&h->text, v, n, false);
		pp_buf_addch(&h->text, '\n');
		break;
	}
}

static void hwtab_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct hwtab *h = hwtab(az);
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	char when[48];

	ana_time_str(az->s, end_ns, when, sizeof(when));
	pp_buf_reset(&h->text);
	if (az->out.format == ANA_FMT_TEXT) {
		/* perf-prof's print_time(): the time and a blank */
		pp_buf_addf(&h->text, "%s \n[%s]", when, ana_cnt_threads(c) ? "THREAD" : "CPU");
		h->ops->head(&h->text);
	}
	/* rows are sorted by (instance, event): one table row per instance */
	for (size_t k = 0; k < nr;) {
		struct ana_hwtab_counts counts = { .ins = rows[k].ins, .thread = rows[k].thread,
						   .d = h->d };

		memset(h->d, 0, h->ops->nr_events * sizeof(*h->d));
		for (; k < nr && rows[k].ins == counts.ins && rows[k].thread == counts.thread; k++) {
			const struct ana_cnt_row *r = &rows[k];

			if (r->ev < h->ops->nr_events)
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
	struct hwtab *h = pp_xcalloc(1, sizeof(*h));
	struct ana_cnt_opts o = { az->opt.period_ns, az->opt.interval_ns, true, hwtab_round };

	*(struct hwtab **)az->priv = h;
	h->ops = ops;
	h->d = pp_xcalloc(ops->nr_events, sizeof(*h->d));
	h->c = ana_cnt_new(az, &o);
	return h->c ? 0 : PP_EUSAGE;
}

void ana_hwtab_event(struct pp_az *az, const struct pp_event *ev)
{
	struct hwtab *h = hwtab(az);

	if (!ev->count || ev->sel->pos >= h->ops->nr_events)
		return;
	h->nr_readings++;
	ana_cnt_feed(h->c, ev, ev->sel->pos, ev->count->d_value);
}

int ana_hwtab_finish(struct pp_az *az)
{
	struct hwtab *h = hwtab(az);

	bool states;

	if (!h || !h->c)
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
	struct hwtab *h = hwtab(az);

	if (!h)
		return;
	ana_cnt_free(h->c);
	free(h->d);
	pp_buf_release(&h->text);
	pp_buf_release(&h->line);
	free(h);
	*(struct hwtab **)az->priv = NULL;
}
