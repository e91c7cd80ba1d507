/* SPDX-License-Identifier: MIT */
/*
 * trace.c - print events in perf-prof's trace layout.
 *
 * One line per event: wall time, comm, tid, latency flags, [cpu], capture
 * time, sys:name and the print_fmt output (the core prints it; common
 * formats go through compiled fast paths).  The per-event `exec=EXPR`
 * attribute runs after the line (its printf() output follows it).  Call
 * stacks, with -g or the per-event `stack` attribute, follow one frame a
 * line, or go to a flame graph with --flame-graph FILE (FILE.svg: an SVG
 * at the end; otherwise folded stacks, per -i interval with perf-prof's
 * "YYYY-MM-DD;HH:MM:SS;" prefix: the wall time the interval began).
 * Lines are batched into one buffer and written in large blocks: writing
 * is most of the cost once formatting is fast.  --format json prints one
 * object per event, csv one row.  Losses are lines of the stream (trace_lost()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/trace.h"
#include "common/buf.h"
#include "common/csv.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/stackmap.h"

#define TRACE_FLUSH_SZ (256u << 10)

struct trace_priv {
	struct pp_buf line;		/* pending output */
	struct pp_buf fields;		/* JSON/CSV scratch */
	struct pp_expr **exec;		/* per match (sel->index): exec=EXPR, or NULL */
	bool any_exec;
	struct pp_flame *flame;		/* --flame-graph */
	struct pp_stackmap stacks;	/* (task, stack) -> flame node */
	FILE *fold_fp;			/* folded output per interval (-i) */
	bool fold_close;
	uint64_t iv_start_ns;		/* start of the current -i interval */
	uint64_t nr_folded;		/* stacks in the flame graph this interval */
	bool csv_header;
	struct trace_ring *rings;	/* --overwrite: per CPU, the newest events' lines */
	size_t nr_rings;
	size_t ring_bytes;		/* what a CPU's ring holds (-m pages) */
};

/*
 * --overwrite: perf-prof writes each CPU's ring backwards and reads it once,
 * at the end, so what it prints is the newest events that fit in -m pages.
 * Here each CPU keeps its events' formatted lines while the perf records they
 * came from would fit (a record's size, as the kernel writes it), oldest out
 * first; the end prints all CPUs' lines in time order.
 */
struct trace_kept {
	uint64_t time_ns;
	uint32_t cost;			/* bytes of the perf record in a ring */
	char *text;
	size_t len;
};

struct trace_ring {
	struct trace_kept *v;		/* a deque */
	size_t head, nr, cap;
	size_t bytes;
};

static uint32_t record_cost(const struct pp_event *ev)
{
	/* header, id, ip, tid, time, addr, cpu, period; callchain; raw (u32 size, padded) */
	return 64 + 8 * (ev->nr_stack + 1) + ((ev->raw_sz + 4 + 7) & ~7u);
}

static void ring_keep(struct trace_priv *p, const struct pp_event *ev, const char *text, size_t len)
{
	uint32_t cpu = ev->cpu < 4096 ? ev->cpu : 4095;
	struct trace_ring *r;

	if (cpu >= p->nr_rings) {
		p->rings = pp_xrealloc(p->rings, (cpu + 1) * sizeof(*p->rings));
		memset(p->rings + p->nr_rings, 0, (cpu + 1 - p->nr_rings) * sizeof(*p->rings));
		p->nr_rings = cpu + 1;
	}
	r = &p->rings[cpu];
	if (r->nr == r->cap) {	/* grow the deque, unwrapped */
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct trace_kept *v = pp_xcalloc(cap, sizeof(*v));

		for (size_t i = 0; i < r->nr; i++)
			v[i] = r->v[(r->head + i) % r->cap];
		free(r->v);
		r->v = v;
		r->cap = cap;
		r->head = 0;
	}
	struct trace_kept *k = &r->v[(r->head + r->nr++) % r->cap];

	*k = (struct trace_kept){ ev->time_ns, record_cost(ev), pp_xmalloc(len + 1), len };
	memcpy(k->text, text, len);
	r->bytes += k->cost;
	while (r->nr > 1 && r->bytes > p->ring_bytes) {	/* the oldest are overwritten */
		struct trace_kept *o = &r->v[r->head];

		r->bytes -= o->cost;
		free(o->text);
		r->head = (r->head + 1) % r->cap;
		r->nr--;
	}
}

static int kept_cmp(const void *a, const void *b)
{
	const struct trace_kept *x = *(struct trace_kept *const *)a, *y = *(struct trace_kept *const *)b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The end of an --overwrite run: every CPU's kept lines, in time order. */
static void ring_print(struct pp_az *az)
{
	struct trace_priv *p = az->priv;
	struct trace_kept **all;
	size_t n = 0;

	for (size_t c = 0; c < p->nr_rings; c++)
		n += p->rings[c].nr;
	all = pp_xcalloc(n + 1, sizeof(*all));
	n = 0;
	for (size_t c = 0; c < p->nr_rings; c++)
		for (size_t i = 0; i < p->rings[c].nr; i++)
			all[n++] = &p->rings[c].v[(p->rings[c].head + i) % p->rings[c].cap];
	qsort(all, n, sizeof(*all), kept_cmp);	/* a CPU's own are in order already */
	for (size_t i = 0; i < n; i++)
		fwrite(all[i]->text, 1, all[i]->len, az->out.fp);
	free(all);
}

static void ring_release(struct trace_priv *p)
{
	for (size_t c = 0; c < p->nr_rings; c++) {
		struct trace_ring *r = &p->rings[c];

		for (size_t i = 0; i < r->nr; i++)
			free(r->v[(r->head + i) % r->cap].text);
		free(r->v);
	}
	free(p->rings);
	p->rings = NULL;
	p->nr_rings = 0;
}

static void trace_flush(struct pp_az *az)
{
	struct trace_priv *p = az->priv;

	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	pp_buf_reset(&p->line);
}

static int open_folded(struct pp_az *az)
{
	struct trace_priv *p = az->priv;
	const char *f = az->opt.flame_graph;

	if (!*f || !strcmp(f, "-")) {
		p->fold_fp = az->out.fp;
		return 0;
	}
	p->fold_fp = fopen(f, "w");
	if (!p->fold_fp) {
		fprintf(stderr, "trace: cannot write '%s': %s\n", f, strerror(errno));
		return -errno;
	}
	p->fold_close = true;
	return 0;
}

static int trace_init(struct pp_az *az)
{
	const struct trace_opts *o = az->opts;
	struct trace_priv *p = az->priv;
	int rc;

	if (o->generic_print)
		ana_print_generic(az->s, true);
	p->exec = calloc(az->nr_sels + 1, sizeof(*p->exec));
	if (!p->exec)
		return -ENOMEM;
	for (size_t i = 0; i < az->nr_sels; i++) {
		const char *text = pp_selector_attr(az->sels[i].sel, "exec");
		if (!text || !*text)
			continue;
		rc = ana_expr_compile(az, az->sels[i].type, "exec", text, &p->exec[i]);
		if (rc)
			return rc;
		p->any_exec = true;
	}
	if (o->overwrite) {
		/* perf-prof's trace default: 2 pages a CPU */
		p->ring_bytes = (size_t)(az->opt.mmap_pages > 0 ? az->opt.mmap_pages : 2) * 4096;
		if (p->any_exec || az->opt.flame_graph) {
			pp_err("trace: --overwrite prints at the end: not with exec= or --flame-graph");
			return PP_EUSAGE;
		}
	}
	if (az->opt.flame_graph) {
		p->flame = pp_flame_new();
		if (az->opt.interval_ns && !pp_flame_path_is_svg(az->opt.flame_graph)) {
			rc = open_folded(az);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static bool wants_stack(const struct pp_az *az, const struct pp_event *ev)
{
	return ev->nr_stack && (az->opt.callchain || (ev->sel && ev->sel->sel->stack));
}

static void add_folded(struct pp_az *az, const struct pp_event *ev)
{
	struct trace_priv *p = az->priv;
	uint64_t key = ana_stack_key(az->s, ev);
	void **slot = pp_stackmap_slot(&p->stacks, key, ev->stack, ev->nr_stack);

	if (!*slot)
		*slot = ana_stack_node(az, p->flame, ev);
	pp_flame_add(*slot, 1);
	p->nr_folded++;
}

static void event_json(struct pp_az *az, const struct pp_event *ev)
{
	struct trace_priv *p = az->priv;
	struct ana_session *s = az->s;

	pp_buf_reset(&p->fields);
	ana_event_fields(s, ev, &p->fields);
	ana_json_event_head(s, ev, &p->line);
	pp_buf_adds(&p->line, ",\"event\":");
	pp_buf_add_json_str(&p->line, ev->type->name);
	pp_buf_adds(&p->line, ",\"fields\":");
	pp_buf_add_json_str(&p->line, pp_buf_str(&p->fields));
	pp_buf_adds(&p->line, "}\n");
}

static void event_csv(struct pp_az *az, const struct pp_event *ev)
{
	struct trace_priv *p = az->priv;
	struct ana_session *s = az->s;
	char ts[32];

	if (!p->csv_header) {
		pp_buf_adds(&p->line, "time,cpu,pid,tid,comm,event,fields\n");
		p->csv_header = true;
	}
	pp_buf_reset(&p->fields);
	ana_event_fields(s, ev, &p->fields);
	pp_buf_addf(&p->line, "%s,%u,%u,%u,", ana_ts_str(ev->time_ns, ts, sizeof(ts)), ev->cpu,
		    ev->pid, ev->tid);
	pp_csv_add_quoted(&p->line, ana_comm(s, ev->tid));
	pp_buf_addch(&p->line, ',');
	pp_csv_add_quoted(&p->line, ev->type->name);
	pp_buf_addch(&p->line, ',');
	pp_csv_add_quoted(&p->line, pp_buf_str(&p->fields));
	pp_buf_addch(&p->line, '\n');
}

static void trace_event(struct pp_az *az, const struct pp_event *ev)
{
	struct trace_priv *p = az->priv;

	size_t start = p->line.len;

	if (!p->iv_start_ns)
		p->iv_start_ns = ev->time_ns;
	if (az->out.format == ANA_FMT_JSON) {
		event_json(az, ev);
	} else if (az->out.format == ANA_FMT_CSV) {
		event_csv(az, ev);
	} else {
		ana_event_print(az->s, ev, &p->line);
		pp_buf_addch(&p->line, '\n');
	}
	if (p->any_exec && p->exec[ev->sel->index]) {
		trace_flush(az);	/* printf() writes through stdio */
		ana_expr_eval(az, p->exec[ev->sel->index], ev);
	}
	if (wants_stack(az, ev)) {
		if (p->flame)
			add_folded(az, ev);
		else if (az->out.format == ANA_FMT_TEXT)
			ana_stack_print(az->s, ev, &p->line);
	}
	if (p->ring_bytes) {	/* --overwrite: kept, printed at the end */
		ring_keep(p, ev, p->line.data + start, p->line.len - start);
		p->line.len = start;
		return;
	}
	if (p->line.len >= TRACE_FLUSH_SZ || ana_is_live(az))
		trace_flush(az);	/* live: into stdio, flushed per segment */
}

/*
 * A loss is a line of the stream where it happened, so the gap it leaves is
 * visible: text "# N events lost on cpuC at WALL (TIME)", json an object of
 * its own ({"lost":N,...}); csv rows have no room for it: the total goes to
 * stderr at the end (ana_report_header()).
 */
static void trace_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct trace_priv *p = az->priv;
	char wall[64], ts[32];

	if (az->out.format == ANA_FMT_CSV)
		return;
	ana_ts_str(l->time_ns, ts, sizeof(ts));
	if (az->out.format == ANA_FMT_JSON)
		pp_buf_addf(&p->line, "{\"lost\":%llu,\"cpu\":%u,\"time\":%s}\n",
			    (unsigned long long)l->count, l->cpu, ts);
	else
		pp_buf_addf(&p->line, "# %llu events lost on cpu%u at %s (%s)\n",
			    (unsigned long long)l->count, l->cpu,
			    ana_time_str(az->s, l->time_ns, wall, sizeof(wall)), ts);
	if (ana_is_live(az))
		trace_flush(az);
}

static int zero_self(struct pp_flame_node *n, void *arg)
{
	n->self = 0;
	return 0;
}

/* The folded stacks of the interval that began at iv_start_ns, then a fresh interval. */
static void write_interval(struct pp_az *az, uint64_t next_start_ns)
{
	struct trace_priv *p = az->priv;
	char when[48];

	if (p->nr_folded) {
		trace_flush(az);
		ana_time_str(az->s, p->iv_start_ns, when, sizeof(when));
		when[10] = ';';
		when[19] = ';';
		when[20] = '\0';
		pp_flame_write_folded(p->flame, p->fold_fp, when);
		pp_flame_walk(p->flame, zero_self, NULL);
		p->nr_folded = 0;
	}
	p->iv_start_ns = next_start_ns;
}

static void trace_interval(struct pp_az *az, uint64_t now_ns)
{
	struct trace_priv *p = az->priv;

	if (p->fold_fp)
		write_interval(az, now_ns);
}

static int trace_finish(struct pp_az *az)
{
	struct trace_priv *p = az->priv;
	char err[256];
	int rc = 0;

	trace_flush(az);
	if (p->ring_bytes)
		ring_print(az);
	if (az->out.format == ANA_FMT_CSV)
		ana_report_header(az);	/* losses and corruption, on stderr */
	if (p->fold_fp) {
		write_interval(az, 0);
		fflush(p->fold_fp);
	} else if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "trace" };
		rc = pp_flame_write_file(p->flame, *az->opt.flame_graph ? az->opt.flame_graph : "-",
					 &so, err, sizeof(err));
		if (rc)
			fprintf(stderr, "trace: %s\n", err);
	}
	fflush(az->out.fp);
	return rc;
}

static void trace_release(struct pp_az *az)
{
	struct trace_priv *p = az->priv;

	for (size_t i = 0; p->exec && i < az->nr_sels; i++)
		pp_expr_free(p->exec[i]);
	free(p->exec);
	if (p->fold_close)
		fclose(p->fold_fp);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
	pp_buf_release(&p->fields);
	ring_release(p);
}


const struct pp_analyzer_ops az_trace_ops = {
	.summary = "print events, with their fields and call stacks",
	.usage = "pp-analyze FILE trace [-e EVENT[/filter/ATTR/][,EVENT...]] [-g] "
		 "[--flame-graph FILE [-i MS]] [-N N] [--format json|csv]",
	.examples =
		"  pp-analyze pp.capture trace                      # every event of the capture\n"
		"  pp-analyze pp.capture trace -e sched:sched_wakeup\n"
		"  pp-analyze pp.capture trace -e 'sched:sched_switch/prev_state==2/' -g\n"
		"  pp-analyze pp.capture trace -e 'sched:sched_switch//stack/' "
		"--flame-graph sw.svg\n"
		"  pp-analyze pp.capture trace -e sched:sched_switch -g --flame-graph sw.folded "
		"-i 1000\n"
		"  pp-analyze pp.capture trace "
		"-e 'sched:sched_wakeup//exec=(printf(\"pid %d\\n\", pid))/'\n"
		"  pp-analyze pp.capture trace -e 'raw_syscalls:*' -N 100 -o first.txt\n",
	.help_attrs = "stack/exec=./",
	.priv_size = sizeof(struct trace_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = trace_init,
	.event = trace_event,
	.lost = trace_lost,
	.interval = trace_interval,
	.finish = trace_finish,
	.release = trace_release,
	.flush = trace_flush,
};
