/* SPDX-License-Identifier: MIT */
/*
 * num-dist.c - the distribution of a number computed from each event (perf-prof's num-dist).
 *
 * Every event needs num=EXPR; its values go to one histogram per event
 * (and per instance with --perins: a CPU, or a thread when -p/-t select
 * threads).  The table has calls, total, min, avg, p50, p95, p99 and max
 * (common/hist.h: bounded memory, percentiles within 0.4%), printed and
 * reset at each -i tick and at the end.  --than N prints the events whose
 * value is over N (with their stacks for -g or `stack`) and counts them;
 * --heatmap FILE writes "time value" lines to FILE-<event>.lat.
 * key= is refused: pairing events is multi-trace's job.  The state
 * (--state-out) is the cells with their histograms, which merge bucket by
 * bucket; --than's and -v's listings are refused with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/hist.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/wire.h"

struct nd_cell {
	uint32_t instance;
	size_t match;
	struct pp_hist h;
	uint64_t over;		/* values over --than */
};

struct nd_priv {
	struct pp_expr **num;	/* per match */
	FILE **heat;		/* per match, --heatmap */
	struct pp_u64map cells;	/* (instance << 16 | match) -> struct nd_cell */
	struct nd_cell **list;
	size_t nr_cells, cap_cells;
	bool by_thread;		/* instances are threads (-p/-t), else CPUs */
	int name_width;
	struct pp_buf line;
};

static const char *match_name(const struct ana_sel *sel)
{
	return sel->sel->alias ? sel->sel->alias : sel->type->event;
}

static int nd_init(struct pp_az *az)
{
	struct nd_priv *p = az->priv;
	char path[4096];
	int rc;

	p->num = calloc(az->nr_sels + 1, sizeof(*p->num));
	p->heat = calloc(az->nr_sels + 1, sizeof(*p->heat));
	if (!p->num || !p->heat)
		return -ENOMEM;
	p->by_thread = az->opt.pids || az->opt.tids;
	p->name_width = 5;	/* "event" */
	if (ana_state_recording(az) && (az->opt.than_ns || az->opt.verbose)) {
		fprintf(stderr, "num-dist: %s with --state-out: it prints events as they come, and "
			"a state holds the table only (replay the capture for them)\n",
			az->opt.than_ns ? "--than" : "-v");
		return PP_EUSAGE;
	}
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *sel = &az->sels[i];
		const char *num = pp_selector_attr(sel->sel, "num");
		if (pp_selector_attr(sel->sel, "key")) {
			fprintf(stderr, "num-dist: %s has key=: to pair events use multi-trace\n",
				sel->type->name);
			return PP_EUSAGE;
		}
		if (!num || !*num) {
			const char *f = sel->type->nr_fields > 4 ? sel->type->fields[4].name
								 : "common_pid";
			fprintf(stderr, "num-dist: %s needs num=EXPR (one per event), e.g. "
				"-e '%s//num=%s/'\n", sel->type->name, sel->type->name, f);
			return PP_EUSAGE;
		}
		rc = ana_expr_compile(az, sel->type, "num", num, &p->num[i]);
		if (rc)
			return rc;
		if ((int)strlen(match_name(sel)) > p->name_width)
			p->name_width = (int)strlen(match_name(sel));
		if (az->opt.heatmap) {
			snprintf(path, sizeof(path), "%s-%s.lat", az->opt.heatmap,
				 sel->type->event);
			p->heat[i] = fopen(path, "w");
			if (!p->heat[i]) {
				fprintf(stderr, "num-dist: cannot write '%s': %s\n", path,
					strerror(errno));
				return -errno;
			}
		}
	}
	return 0;
}

static struct nd_cell *cell_get(struct nd_priv *p, uint32_t instance, size_t match)
{
	void **slot = pp_u64map_slot(&p->cells, (uint64_t)instance << 16 | match);
	struct nd_cell *c = *slot;

	if (c)
		return c;
	c = *slot = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->instance = instance;
	c->match = match;
	pp_hist_init(&c->h);
	if (p->nr_cells == p->cap_cells) {
		p->cap_cells = p->cap_cells ? 2 * p->cap_cells : 16;
		p->list = realloc(p->list, p->cap_cells * sizeof(*p->list));
		if (!p->list)
			abort();
	}
	p->list[p->nr_cells++] = c;
	return c;
}

static void nd_event(struct pp_az *az, const struct pp_event *ev)
{
	struct nd_priv *p = az->priv;
	size_t m = ev->sel->index;
	uint64_t v = (uint64_t)ana_expr_eval(az, p->num[m], ev);
	uint32_t instance = !az->opt.perins ? 0 : p->by_thread ? ev->tid : ev->cpu;
	struct nd_cell *c = cell_get(p, instance, m);
	bool over = az->opt.than_ns && v > az->opt.than_ns;

	pp_hist_add(&c->h, v);
	c->over += over;
	if (p->heat[m])
		fprintf(p->heat[m], "%llu %llu\n", (unsigned long long)ev->time_ns,
			(unsigned long long)v);
	if (over || az->opt.verbose) {
		pp_buf_reset(&p->line);
		ana_event_print(az->s, ev, &p->line);
		pp_buf_addch(&p->line, '\n');
		if (ev->nr_stack && (az->opt.callchain || ev->sel->sel->stack))
			ana_stack_print(az->s, ev, &p->line);
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	}
}

static int cell_cmp(const void *a, const void *b)
{
	const struct nd_cell *x = *(const struct nd_cell *const *)a;
	const struct nd_cell *y = *(const struct nd_cell *const *)b;

	if (x->instance != y->instance)
		return x->instance < y->instance ? -1 : 1;
	return x->match < y->match ? -1 : x->match > y->match;
}

static void print_text(struct pp_az *az, uint64_t now_ns)
{
	struct nd_priv *p = az->priv;
	FILE *fp = az->out.fp;
	bool than = az->opt.than_ns;
	char when[48];

	fprintf(fp, "%s\n", ana_time_str(az->s, now_ns, when, sizeof(when)));
	if (az->opt.perins)
		fputs(p->by_thread ? "[THREAD] " : "[CPU] ", fp);
	fprintf(fp, "%-*s %8s %16s %12s %12s %12s %12s %12s %12s%s\n", p->name_width, "event",
		"calls", "total", "min", "avg", "p50", "p95", "p99", "max",
		than ? "         than" : "");
	if (az->opt.perins)
		fputs(p->by_thread ? "-------- " : "----- ", fp);
	for (int i = 0; i < p->name_width; i++)
		fputc('-', fp);
	fprintf(fp, " -------- ---------------- ------------ ------------ ------------ ------------"
		    " ------------ ------------%s\n", than ? " ------------" : "");
	for (size_t i = 0; i < p->nr_cells; i++) {
		const struct nd_cell *c = p->list[i];
		const struct pp_hist *h = &c->h;
		if (az->opt.perins) {
			if (p->by_thread)
				fprintf(fp, "%-8u ", c->instance);
			else
				fprintf(fp, "[%03u] ", c->instance);
		}
		fprintf(fp, "%*s %8llu %16llu %12llu %12llu %12llu %12llu %12llu %12llu",
			p->name_width, match_name(&az->sels[c->match]),
			(unsigned long long)pp_hist_count(h),
			(unsigned long long)pp_hist_sum(h), (unsigned long long)pp_hist_min(h),
			(unsigned long long)(pp_hist_sum(h) / pp_hist_count(h)),
			(unsigned long long)pp_hist_percentile(h, 50),
			(unsigned long long)pp_hist_percentile(h, 95),
			(unsigned long long)pp_hist_percentile(h, 99),
			(unsigned long long)pp_hist_max(h));
		if (than)
			fprintf(fp, " %12llu", (unsigned long long)c->over);
		fputc('\n', fp);
	}
}

static void print_table(struct pp_az *az)
{
	struct nd_priv *p = az->priv;
	struct pp_table *t = pp_table_new();
	static const char *const cols[] = { "calls", "total", "min", "avg", "p50", "p95", "p99",
					    "max" };

	if (az->opt.perins)
		pp_table_col(t, p->by_thread ? "thread" : "cpu", NULL, 0, 0);
	pp_table_col(t, "event", NULL, PP_COL_LEFT, 0);
	for (size_t i = 0; i < PP_ARRAY_SIZE(cols); i++)
		pp_table_col(t, cols[i], NULL, 0, 0);
	if (az->opt.than_ns)
		pp_table_col(t, "than", NULL, 0, 0);
	for (size_t i = 0; i < p->nr_cells; i++) {
		const struct nd_cell *c = p->list[i];
		const struct pp_hist *h = &c->h;
		pp_table_row(t);
		if (az->opt.perins)
			pp_table_u64(t, c->instance);
		pp_table_str(t, match_name(&az->sels[c->match]));
		pp_table_u64(t, pp_hist_count(h));
		pp_table_u64(t, pp_hist_sum(h));
		pp_table_u64(t, pp_hist_min(h));
		pp_table_u64(t, pp_hist_sum(h) / pp_hist_count(h));
		pp_table_u64(t, pp_hist_percentile(h, 50));
		pp_table_u64(t, pp_hist_percentile(h, 95));
		pp_table_u64(t, pp_hist_percentile(h, 99));
		pp_table_u64(t, pp_hist_max(h));
		if (az->opt.than_ns)
			pp_table_u64(t, c->over);
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "num-dist");
	pp_table_free(t);
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct nd_priv *p = az->priv;

	if (!p->nr_cells)
		return;
	qsort(p->list, p->nr_cells, sizeof(*p->list), cell_cmp);
	ana_report_header(az);	/* text: above the table; json, csv: on stderr */
	if (az->out.format == ANA_FMT_TEXT)
		print_text(az, now_ns);
	else
		print_table(az);
	/* each interval starts empty */
	for (size_t i = 0; i < p->nr_cells; i++) {
		pp_hist_release(&p->list[i]->h);
		free(p->list[i]);
	}
	p->nr_cells = 0;
	pp_u64map_release(&p->cells);
}

static void nd_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
}

static int nd_finish(struct pp_az *az)
{
	report(az, ana_capture_end_ns(az->s));
	return 0;
}

/* --- mergeable state (docs/state-format.md "num-dist") ------------------------ */

/* The cells by (instance, event), each with its histogram and its count over --than. */
static int nd_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct nd_priv *p = az->priv;

	if (p->nr_cells)
		qsort(p->list, p->nr_cells, sizeof(*p->list), cell_cmp);
	pp_wire_put_varint(out, p->nr_cells);
	for (size_t i = 0; i < p->nr_cells; i++) {
		const struct nd_cell *c = p->list[i];
		pp_wire_put_varint(out, c->instance);
		pp_wire_put_varint(out, c->match);
		pp_wire_put_varint(out, c->over);
		pp_wire_put_hist(out, &c->h);
	}
	return 0;
}

/* A cell's histogram merges bucket by bucket: its percentiles are the replay's. */
static int nd_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct nd_priv *p = az->priv;
	size_t nr = pp_wire_count(in, 4, SIZE_MAX, "cells");

	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t instance = pp_wire_u32(in, "instance");
		uint64_t match = pp_wire_varint(in), over = pp_wire_varint(in);
		struct pp_hist h;
		int rc;

		if (pp_wire_ok(in) && (match >= az->nr_sels || (!az->opt.perins && instance)))
			return pp_wire_fail(in, PP_EBAD_RECORD, "cell %zu: event %llu of %zu, "
					    "instance %u", i, (unsigned long long)match, az->nr_sels,
					    instance);
		pp_hist_init(&h);
		rc = pp_wire_hist(in, &h);
		if (!rc && (!pp_hist_count(&h) || over > pp_hist_count(&h)))
			rc = pp_wire_fail(in, PP_EBAD_RECORD, "cell %zu: %llu values, %llu over",
					  i, (unsigned long long)pp_hist_count(&h),
					  (unsigned long long)over);
		if (!rc) {
			struct nd_cell *c = cell_get(p, instance, (size_t)match);
			pp_hist_merge(&c->h, &h);
			c->over += over;
		}
		pp_hist_release(&h);
		if (rc)
			return rc;
	}
	return in->err;
}

static void nd_release(struct pp_az *az)
{
	struct nd_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_cells; i++) {
		pp_hist_release(&p->list[i]->h);
		free(p->list[i]);
	}
	for (size_t i = 0; p->num && i < az->nr_sels; i++) {
		pp_expr_free(p->num[i]);
		if (p->heat[i])
			fclose(p->heat[i]);
	}
	free(p->num);
	free(p->heat);
	free(p->list);
	pp_u64map_release(&p->cells);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_num_dist_ops = {
	.summary = "distribution of a number per event: calls total min avg p50 p95 p99 max",
	.usage = "pp-analyze FILE num-dist -e EVENT//num=EXPR/[alias=NAME/][,EVENT...] [--perins] "
		 "[--than N] [--heatmap FILE] [-g] [-i MS]",
	.examples =
		"  pp-analyze pp.capture num-dist -e sched:sched_stat_runtime help\n"
		"  pp-analyze pp.capture num-dist -e 'sched:sched_stat_runtime//num=runtime/' "
		"-C 0 -i 1000\n"
		"  pp-analyze pp.capture num-dist "
		"-e 'sched:sched_stat_runtime//num=\"runtime/1000\"/alias=runtime(us)/'\n"
		"  pp-analyze pp.capture num-dist -e 'raw_syscalls:sys_exit//num=ret/' "
		"--perins --than 4096\n",
	.help_attrs = "num=./alias=./stack/",
	.priv_size = sizeof(struct nd_priv),
	.flags = PP_AZ_NEED_EVENTS | PP_AZ_STATE_CUT,
	.init = nd_init,
	.event = nd_event,
	.interval = nd_interval,
	.finish = nd_finish,
	.release = nd_release,
	.state_version = 1,
	.state_write = nd_state_write,
	.state_read = nd_state_read,
};
