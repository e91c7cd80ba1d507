/* SPDX-License-Identifier: MIT */
/*
 * hist-print.c - perf-prof's hrcount/stat report of a round: each row's slots.
 *
 * Two layouts, as perf-prof has them.  Direct (the default):
 *   [000] sched:sched_switch 12|15|18|20|14 | total 79
 * the name right-aligned to the longest, each slot as wide as the largest
 * count seen so far (2 at least).  Packed, on a terminal when a round has 5
 * slots or fewer (perf-prof's choice; --packed forces it):
 *   [CPU] |sched_switch |sched_wakeup|
 *   [000] |12 15 18 20 14|3  4  2  1  0 |
 * JSON: one line per row {"time","cpu"|"tid","event","counts":[...],"total"}; CSV the same.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/count/count.h"
#include "common/buf.h"
#include "common/log.h"

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void print_ins(FILE *fp, const struct ana_cnt_row *r)
{
	if (r->thread)
		fprintf(fp, "[%6u] ", r->ins);
	else
		fprintf(fp, "[%03u] ", r->ins);
}

static void print_direct(struct pp_az *az, struct ana_cnt *c, const struct ana_cnt_names *n)
{
	FILE *fp = az->out.fp;
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	int w = digits(ana_cnt_max(c)), nw = 0;
	unsigned hist = ana_cnt_slots(c);

	if (w < 2)
		w = 2;
	for (size_t i = 0; i < n->nr; i++)
		if ((int)strlen(n->full[i]) > nw)
			nw = (int)strlen(n->full[i]);
	for (size_t k = 0; k < nr; k++) {
		const struct ana_cnt_row *r = &rows[k];

		if (az->opt.perins)
			print_ins(fp, r);
		fprintf(fp, "%*s ", nw, r->ev < n->nr ? n->full[r->ev] : "?");
		for (unsigned i = 0; i < hist; i++)
			fprintf(fp, i ? "|%*llu" : "%*llu", w, (unsigned long long)r->slot[i]);
		fprintf(fp, " | total %llu\n", (unsigned long long)r->sum);
	}
}

static void print_packed(struct pp_az *az, struct ana_cnt *c, struct ana_cnt_names *n)
{
	FILE *fp = az->out.fp;
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	unsigned hist = ana_cnt_slots(c);
	bool pipe = hist > 1 || n->nr > 1;
	const char *bar = pipe ? "|" : "";

	/* the columns only widen: perf-prof keeps a column's width once grown */
	for (size_t k = 0; k < nr; k++) {
		const struct ana_cnt_row *r = &rows[k];
		int want = (int)hist * (digits(r->max) + 1) - 1;

		if (r->ev < n->nr && n->width[r->ev] < want)
			n->width[r->ev] = want;
	}
	if (az->opt.perins)
		fputs(ana_cnt_threads(c) ? "[THREAD] " : "[CPU] ", fp);
	for (size_t i = 0; i < n->nr; i++)
		fprintf(fp, "%s%-*s", bar, n->width[i], n->name[i]);
	fprintf(fp, "%s\n", bar);
	for (size_t k = 0; k < nr;) {
		uint32_t ins = rows[k].ins;
		bool thread = rows[k].thread;

		if (az->opt.perins)
			print_ins(fp, &rows[k]);
		for (uint32_t e = 0; e < n->nr; e++) {
			const struct ana_cnt_row *r = k < nr && rows[k].ins == ins &&
						      rows[k].thread == thread && rows[k].ev == e ?
						      &rows[k++] : NULL;
			int sw = (n->width[e] + 1) / (int)hist - 1, len = 0;

			if (!r) {	/* an event this instance does not count (cpus=) */
				fprintf(fp, "%s%-*s", bar, n->width[e], "");
				continue;
			}
			fputs(bar, fp);
			for (unsigned i = 0; i < hist; i++)
				len += fprintf(fp, i ? " %-*llu" : "%-*llu", sw,
					       (unsigned long long)r->slot[i]);
			fprintf(fp, "%*s", n->width[e] - len > 0 ? n->width[e] - len : 0, "");
		}
		while (k < nr && rows[k].ins == ins && rows[k].thread == thread)
			k++;	/* an event index past the names */
		fprintf(fp, "%s\n", bar);
	}
}

static void print_lines(struct pp_az *az, struct ana_cnt *c, struct ana_cnt_names *n,
			uint64_t end_ns)
{
	FILE *fp = az->out.fp;
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	unsigned hist = ana_cnt_slots(c);
	char when[48];
	struct pp_buf b = PP_BUF_INIT;

	ana_time_str(az->s, end_ns, when, sizeof(when));
	if (az->out.format == ANA_FMT_CSV && !n->csv_head) {
		fputs("time,instance,event", fp);
		for (unsigned i = 0; i < hist; i++)
			fprintf(fp, ",slot%u", i);
		fputs(",total\n", fp);
		n->csv_head = true;
	}
	for (size_t k = 0; k < nr; k++) {
		const struct ana_cnt_row *r = &rows[k];
		const char *name = r->ev < n->nr ? n->full[r->ev] : "?";

		pp_buf_reset(&b);
		if (az->out.format == ANA_FMT_JSON) {
			pp_buf_addf(&b, "{\"time\":\"%s\",", when);
			if (az->opt.perins)
				pp_buf_addf(&b, "\"%s\":%u,", r->thread ? "tid" : "cpu", r->ins);
			pp_buf_adds(&b, "\"event\":");
			pp_buf_add_json_str(&b, name);
			pp_buf_adds(&b, ",\"counts\":[");
			for (unsigned i = 0; i < hist; i++)
				pp_buf_addf(&b, "%s%llu", i ? "," : "", (unsigned long long)r->slot[i]);
			pp_buf_addf(&b, "],\"total\":%llu}\n", (unsigned long long)r->sum);
		} else {
			pp_buf_addf(&b, "%s,", when);
			if (az->opt.perins)
				pp_buf_addf(&b, "%u", r->ins);
			pp_buf_addf(&b, ",%s", name);
			for (unsigned i = 0; i < hist; i++)
				pp_buf_addf(&b, ",%llu", (unsigned long long)r->slot[i]);
			pp_buf_addf(&b, ",%llu\n", (unsigned long long)r->sum);
		}
		fputs(pp_buf_str(&b), fp);
	}
	pp_buf_release(&b);
}

void ana_cnt_print_hist(struct pp_az *az, struct ana_cnt *c, struct ana_cnt_names *n,
			uint64_t end_ns)
{
	char when[48];

	if (az->out.format != ANA_FMT_TEXT) {
		print_lines(az, c, n, end_ns);
		return;
	}
	/* perf-prof's print_time(): the time and a blank, then the rows */
	fprintf(az->out.fp, "%s \n", ana_time_str(az->s, end_ns, when, sizeof(when)));
	if (n->packed && ana_cnt_slots(c) <= 5)
		print_packed(az, c, n);
	else
		print_direct(az, c, n);
}

void ana_cnt_names_init(struct ana_cnt_names *n, struct pp_az *az, unsigned hist, bool packed)
{
	memset(n, 0, sizeof(*n));
	n->packed = packed;
	for (size_t i = 0; i < az->nr_sels; i++)
		if (az->sels[i].index + 1 > n->nr)
			n->nr = az->sels[i].index + 1;
	n->full = pp_xcalloc(n->nr + 1, sizeof(*n->full));
	n->name = pp_xcalloc(n->nr + 1, sizeof(*n->name));
	n->width = pp_xcalloc(n->nr + 1, sizeof(*n->width));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *s = &az->sels[i];
		const struct ana_evtype *t = s->type;
		bool alias = s->sel && s->sel->alias;
		unsigned k = s->index;

		if (n->full[k])
			continue;
		n->full[k] = pp_xstrdup(alias ? s->alias : t->name);
		n->name[k] = pp_xstrdup(alias ? s->alias : t->event ? t->event : t->name);
		n->width[k] = (int)strlen(n->name[k]);
		if (n->width[k] < (int)hist * 3 - 1)
			n->width[k] = (int)hist * 3 - 1;
	}
	for (size_t k = 0; k < n->nr; k++)
		if (!n->full[k]) {
			n->full[k] = pp_xstrdup("?");
			n->name[k] = pp_xstrdup("?");
		}
}

void ana_cnt_names_release(struct ana_cnt_names *n)
{
	for (size_t k = 0; k < n->nr; k++) {
		free(n->full[k]);
		free(n->name[k]);
	}
	free(n->full);
	free(n->name);
	free(n->width);
	memset(n, 0, sizeof(*n));
}
