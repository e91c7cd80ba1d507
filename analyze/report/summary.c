/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the capture section of a report: what `pp-analyze FILE info` says of
 * it, from the session after the replay rather than from a second read: host,
 * recording command, recorder, time range, events per type, losses per CPU, late
 * samples, bytes, tasks, and whatever the reader found damaged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/log.h"
#include "common/units.h"

static const char *host(struct ana_rpt *r, const char *key)
{
	const char *v = ana_host(r->s, key);

	return v ? v : "";
}

/* One row of the key/value table: @v is capture text (escaped). */
static void kv(struct ana_rpt *r, const char *k, const char *v)
{
	pp_buf_adds(&r->body, "<tr><th>");
	rpt_html(&r->body, k);
	pp_buf_adds(&r->body, "</th><td>");
	rpt_html(&r->body, v);
	pp_buf_adds(&r->body, "</td></tr>\n");
}

static void kvf(struct ana_rpt *r, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kvf(struct ana_rpt *r, const char *k, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = pp_xvasprintf(fmt, ap);
	va_end(ap);
	kv(r, k, s);
	free(s);
}

static void events_table(struct ana_rpt *r, uint64_t total, size_t max_rows)
{
	static const char *const cols[] = { "event", "count", "share", "stacks", "recorded filter",
					    NULL };
	struct ana_session *s = r->s;
	struct rpt_csv t;
	size_t *order, nr = s->nr_types < max_rows || !max_rows ? s->nr_types : max_rows;

	rpt_csv_header(&t, cols);
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *e = s->type_list[i];

		rpt_csv_addf(&t, "%s", e->name);
		if (!ana_rpt_type_sampled(e)) {
			rpt_csv_addf(&t, "counted");
			rpt_csv_addf(&t, "%s", "");
		} else {
			rpt_csv_addf(&t, "%llu", (unsigned long long)e->count);
			rpt_csv_addf(&t, "%.2f%%",
				     total ? 100.0 * (double)e->count / (double)total : 0);
		}
		rpt_csv_addf(&t, "%s", ana_evtype_has_stack(e) ? "yes" : "no");
		rpt_csv_addf(&t, "%s", e->filter ? e->filter : "");
	}
	order = pp_xmalloc((t.nr_rows + 1) * sizeof(*order));
	for (size_t i = 0; i < t.nr_rows; i++)
		order[i] = i;
	if (nr < t.nr_rows)
		ana_rpt_text(r, "the first %zu of %zu event types", nr, t.nr_rows);
	rpt_table_html(&r->body, &t, order, nr, NULL);
	free(order);
	rpt_csv_release(&t);
}

static void lost_table(struct ana_rpt *r, size_t max_rows)
{
	static const char *const cols[] = { "cpu", "lost", NULL };
	struct ana_session *s = r->s;
	struct rpt_csv t;
	size_t *order, nr = s->nr_lost_cpus < max_rows || !max_rows ? s->nr_lost_cpus : max_rows;

	rpt_csv_header(&t, cols);
	for (size_t i = 0; i < s->nr_lost_cpus; i++) {
		rpt_csv_addf(&t, "%u", s->lost_cpus[i].cpu);
		rpt_csv_addf(&t, "%llu", (unsigned long long)s->lost_cpus[i].count);
	}
	order = pp_xmalloc((t.nr_rows + 1) * sizeof(*order));
	for (size_t i = 0; i < t.nr_rows; i++)
		order[i] = i;
	pp_buf_adds(&r->body, "<h3>Losses per CPU</h3>\n");
	rpt_table_html(&r->body, &t, order, nr, NULL);
	free(order);
	rpt_csv_release(&t);
}

void ana_rpt_summary(struct ana_rpt *r, size_t max_rows)
{
	struct ana_session *s = r->s;
	const struct ppf_read_stats *st = ppf_reader_stats(s->r);
	uint64_t t0 = ana_capture_start_ns(s), t1 = ana_capture_end_ns(s), total = 0;
	struct pp_buf cmd = PP_BUF_INIT, problems = PP_BUF_INIT;
	char a[64], b[64], d[64];

	for (size_t i = 0; i < s->nr_types; i++)
		if (ana_rpt_type_sampled(s->type_list[i]))
			total += s->type_list[i]->count;
	ana_rpt_section(r, "capture", "Capture");
	pp_buf_addf(&cmd, "pp-analyze %s info", r->file_shown);
	ana_rpt_command(r, pp_buf_str(&cmd));
	if (!strcmp(s->path, "-"))
		ana_rpt_text(r, "Made live, from a stream: the commands read CAPTURE, the file "
			     "that pp ... --save CAPTURE or pp-record -o CAPTURE keeps.");
	pp_buf_adds(&r->body, "<table class=\"kv\">\n");
	kv(r, "capture", s->path);
	kvf(r, "host", "%s (%s %s %s), %s CPUs online / %s possible", host(r, "hostname"),
	    *host(r, "sysname") ? host(r, "sysname") : "Linux", host(r, "release"),
	    host(r, "machine"), host(r, "nr_cpus_online"), host(r, "nr_cpus_possible"));
	kv(r, "command", host(r, "cmdline"));
	kvf(r, "recorder", "pp-record %s, clock %s", host(r, "pp_version"), host(r, "clock"));
	if (total) {
		kvf(r, "time", "%s .. %s (%s)", ana_ts_str(t0, a, sizeof(a)),
		    ana_ts_str(t1, b, sizeof(b)), pp_format_ns(t1 - t0, d, sizeof(d)));
		kvf(r, "wall clock", "%s .. %s", ana_time_str(s, t0, a, sizeof(a)),
		    ana_time_str(s, t1, b, sizeof(b)));
	} else {
		kv(r, "time", "no events");
	}
	kvf(r, "events", "%llu", (unsigned long long)total);
	kvf(r, "lost", "%llu%s", (unsigned long long)s->lost_total,
	    s->lost_total ? " (per CPU below)" : "");
	kvf(r, "late", "%llu (written after the reorder window)", (unsigned long long)r->nr_late);
	kvf(r, "bytes", "raw %s, compressed %s in %llu segments",
	    pp_format_bytes(st->raw_bytes, a, sizeof(a)),
	    pp_format_bytes(st->comp_bytes, b, sizeof(b)),
	    (unsigned long long)st->nr_segments);
	kvf(r, "tasks", "%zu seen", s->tasks.nr);
	if (ana_capture_problems(s, &problems))
		kv(r, "integrity", pp_buf_str(&problems));
	else
		kv(r, "integrity", "ok");
	pp_buf_adds(&r->body, "</table>\n<h3>Events</h3>\n");
	events_table(r, total, max_rows);
	if (s->nr_lost_cpus)
		lost_table(r, max_rows);
	pp_buf_release(&cmd);
	pp_buf_release(&problems);
}
