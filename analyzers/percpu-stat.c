/* SPDX-License-Identifier: MIT */
/*
 * percpu-stat.c - perf-prof's percpu-stat: hand-picked counters per CPU per interval.
 *
 * Context switches, migrations, page faults, interrupts, softirqs, timers,
 * work items, KVM exits, network, page allocation, reclaim, page cache,
 * writeback and idle entries (power:cpu_idle counts entry and exit: halved),
 * system calls with --syscalls.  Every -i the counts of the interval, one
 * row per CPU and [ALL], perf-prof's layout:
 *   2026-01-01 00:00:01.000000 
 *   [CPU]  SOFT csw cpu-mig minflt ...
 *   [000]       123       4     56 ...
 *   [ALL]       200       9     80 ...
 * Columns of events the capture lacks (a kernel without kvm) are left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/count/count.h"
#include "analyzers/percpu-stat.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"

#define NR_COLS (sizeof(percpu_stat_cols) / sizeof(percpu_stat_cols[0]))

struct ps_priv {
	struct ana_cnt *c;
	int col_of[NR_COLS];		/* event index -> column, by ana_sel.index */
	unsigned nr;			/* columns shown */
	const struct percpu_stat_col *cols[NR_COLS];
	bool csv_head;
};

static int ps_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const struct percpu_stat_opts *o = az->opts;

	for (size_t i = 0; i < NR_COLS; i++) {
		const struct percpu_stat_col *col = &percpu_stat_cols[i];

		if (col->syscalls && !o->syscalls)
			continue;
		if (ana_evtype_find(az->s, col->event))
			pp_strlist_push(events, col->event);
	}
	if (!events->nr) {
		pp_err("percpu-stat: the capture has none of its events (record with pp-record --for percpu-stat)");
		return PP_EUNKNOWN_EVENT;
	}
	return 0;
}

static void ps_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns);

static int ps_init(struct pp_az *az)
{
	struct ps_priv *p = az->priv;
	struct ana_cnt_opts o = { 0, az->opt.interval_ns ? az->opt.interval_ns : 1000000000ull,
				  true, ps_round };

	/* one slot a round: the interval's count */
	o.period_ns = o.interval_ns;
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *s = &az->sels[i];
		bool known = false;

		for (size_t k = 0; k < NR_COLS; k++)
			known |= !strcmp(percpu_stat_cols[k].event, s->type->name);
		if (!known || s->sel->filter) {
			pp_err("percpu-stat: does not take -e: it counts its own events (%s)",
			       s->sel->text);
			return PP_EUSAGE;
		}

		for (size_t k = 0; k < NR_COLS; k++)
			if (!strcmp(percpu_stat_cols[k].event, s->type->name) &&
			    s->index < NR_COLS) {
				p->cols[s->index] = &percpu_stat_cols[k];
				if (s->index + 1 > p->nr)
					p->nr = s->index + 1;
			}
	}
	p->c = ana_cnt_new(az, &o);
	return p->c ? 0 : PP_EUSAGE;
}

static void ps_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ps_priv *p = az->priv;

	if (!ev->count || ev->cpu == UINT32_MAX || ev->sel->index >= p->nr)	/* CPUs only */
		return;
	ana_cnt_feed(p->c, ev, ev->sel->index, ev->count->d_value);
}

static uint64_t col_value(const struct ps_priv *p, const struct ana_cnt_row *r)
{
	return p->cols[r->ev] && p->cols[r->ev]->halves ? r->sum / 2 : r->sum;
}

static void ps_text(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct ps_priv *p = az->priv;
	FILE *fp = az->out.fp;
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	uint64_t *all = pp_xcalloc(p->nr + 1, sizeof(*all));
	char when[48];

	fprintf(fp, "%s \n[CPU] ", ana_time_str(az->s, end_ns, when, sizeof(when)));
	for (unsigned e = 0; e < p->nr; e++)
		if (p->cols[e])
			fprintf(fp, "%s ", p->cols[e]->title);
	for (size_t k = 0; k < nr;) {
		uint32_t cpu = rows[k].ins;

		fprintf(fp, "\n[%03u] ", cpu);
		for (unsigned e = 0; e < p->nr; e++) {
			uint64_t v = 0;

			if (!p->cols[e])
				continue;
			if (k < nr && rows[k].ins == cpu && rows[k].ev == e)
				v = col_value(p, &rows[k++]);
			all[e] += v;
			fprintf(fp, "%*llu ", (int)strlen(p->cols[e]->title), (unsigned long long)v);
		}
		while (k < nr && rows[k].ins == cpu)
			k++;
	}
	fputs("\n[ALL] ", fp);
	for (unsigned e = 0; e < p->nr; e++)
		if (p->cols[e])
			fprintf(fp, "%*llu ", (int)strlen(p->cols[e]->title),
				(unsigned long long)all[e]);
	fputc('\n', fp);
	free(all);
}

/* JSON: a line per CPU {"time","cpu","counts":{event:n,...}}; CSV: time,cpu,event,count. */
static void ps_lines(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct ps_priv *p = az->priv;
	size_t nr;
	struct ana_cnt_row *rows = ana_cnt_rows(c, &nr);
	struct pp_buf b = PP_BUF_INIT;
	char when[48];

	ana_time_str(az->s, end_ns, when, sizeof(when));
	if (az->out.format == ANA_FMT_CSV && !p->csv_head) {
		fputs("time,cpu,event,count\n", az->out.fp);
		p->csv_head = true;
	}
	for (size_t k = 0; k < nr;) {
		uint32_t cpu = rows[k].ins;
		bool first = true;

		pp_buf_reset(&b);
		if (az->out.format == ANA_FMT_JSON)
			pp_buf_addf(&b, "{\"time\":\"%s\",\"cpu\":%u,\"counts\":{", when, cpu);
		for (; k < nr && rows[k].ins == cpu; k++) {
			const struct percpu_stat_col *col = p->cols[rows[k].ev];

			if (!col)
				continue;
			if (az->out.format == ANA_FMT_JSON) {
				pp_buf_addf(&b, "%s", first ? "" : ",");
				pp_buf_add_json_str(&b, col->event);
				pp_buf_addf(&b, ":%llu", (unsigned long long)col_value(p, &rows[k]));
			} else {
				pp_buf_addf(&b, "%s,%u,%s,%llu\n", when, cpu, col->event,
					    (unsigned long long)col_value(p, &rows[k]));
			}
			first = false;
		}
		if (az->out.format == ANA_FMT_JSON)
			pp_buf_adds(&b, "}}\n");
		fputs(pp_buf_str(&b), az->out.fp);
	}
	pp_buf_release(&b);
}

static void ps_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	if (az->out.format == ANA_FMT_TEXT)
		ps_text(az, c, end_ns);
	else
		ps_lines(az, c, end_ns);
}

static int ps_finish(struct pp_az *az)
{
	struct ps_priv *p = az->priv;

	if (p->c)
		ana_cnt_finish(p->c);
	return 0;
}

static void ps_release(struct pp_az *az)
{
	struct ps_priv *p = az->priv;

	ana_cnt_free(p->c);
	p->c = NULL;
}

const struct pp_analyzer_ops az_percpu_stat_ops = {
	.summary = "perf-prof's hand-picked counters (switches, faults, irqs, softirqs, ...) per CPU per interval",
	.usage = "pp-analyze FILE percpu-stat [--syscalls] [-i MS] [-C CPUS]",
	.examples = "  pp percpu-stat -C 0\n"
		    "  pp percpu-stat --syscalls -i 2000\n"
		    "  pp-record --for 'percpu-stat --syscalls' -a --duration 10 -o ps.capture\n"
		    "  pp-analyze ps.capture percpu-stat --syscalls -i 5000 --format json\n",
	.priv_size = sizeof(struct ps_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,
	.set_events = ps_set_events,
	.init = ps_init,
	.event = ps_event,
	.finish = ps_finish,
	.release = ps_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = ana_cnt_az_state_write,
	.state_read = ana_cnt_az_state_read,
	.state_join = ana_cnt_az_state_join,
};
