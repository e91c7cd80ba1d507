/* SPDX-License-Identifier: MIT */
/*
 * oncpu.c - who ran on which CPU, and for how long (perf-prof's oncpu).
 *
 * CPU mode (default, -C): from sched_switch.  The time between two switches
 * of a CPU belongs to the task that was switched out (the idle task is not
 * shown).  perf-prof charges a run only when it ends; here a run still going
 * at an interval boundary is cut there and charged to both intervals, so a
 * task that never leaves its CPU shows its full time (the switch count only
 * counts real switches).  Rows per (CPU, thread), or (CPU, comm) with
 * --only-comm, sorted by CPU, then time.
 * Thread mode (-p/-t): from sched_stat_runtime, the kernel's own runtime
 * accounting of each thread, split by CPU.  An update charged to another
 * task than the sample's (a wakeup on a remote CPU) is skipped, as perf-prof.
 * --filter EXPR or --prio LIST filter the events.  Tables every -i (1 s
 * default) and at the end.  Not here: perf-prof's co-running siblings.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/oncpu.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/vec.h"

struct oc_row {
	uint32_t ins;			/* CPU, or thread in thread mode */
	uint32_t other;			/* thread, or CPU in thread mode */
	char comm[32];
	uint64_t runtime_ns, nr_run, max_ns;
};

struct oc_cpu {
	bool known;			/* a switch was seen on it */
	uint32_t cur;			/* the task running since the last switch */
	char cur_comm[32];
	uint64_t last_ns;		/* time charged up to here */
	uint64_t run_start_ns;		/* when @cur was switched in */
};

struct oc_priv {
	bool thread_mode, only_comm;
	struct pp_u64map row_map;
	struct oc_row **rows;
	size_t nr_rows, cap_rows;
	struct oc_cpu *cpus;
	size_t nr_cpus;
	struct pp_expr *filter;
	const struct pp_field *prev_pid, *next_pid, *prev_comm, *next_comm;
	const struct pp_field *rt_pid, *rt_runtime;
	struct pp_buf line;
};

static int oc_set_events(struct pp_az *az, struct pp_strlist *events)
{
	bool thread_mode = az->opt.pids || az->opt.tids;

	pp_strlist_push(events, thread_mode ? "sched:sched_stat_runtime" : "sched:sched_switch");
	return 0;
}

static int oc_need(const struct ana_evtype *t, const char *name, const struct pp_field **f)
{
	if ((*f = ana_field_find(t, name)))
		return 0;
	pp_err("oncpu: event %s has no field '%s'", t->name, name);
	return PP_EUNKNOWN_FIELD;
}

static int oc_init(struct pp_az *az)
{
	struct oc_priv *p = az->priv;
	const struct oncpu_opts *o = az->opts;
	const struct ana_evtype *t;
	char *prio = NULL;
	int rc = 0;

	p->thread_mode = az->nr_pids || az->nr_tids;
	p->only_comm = o->only_comm;
	if (!az->opt.interval_ns)
		az->opt.interval_ns = 1000000000ull;	/* perf-prof's default: -i 1000 */
	if (!az->nr_sels) {
		pp_err("oncpu: no sched event in the capture");
		return PP_EUNKNOWN_EVENT;
	}
	t = az->sels[0].type;
	if (p->thread_mode) {
		rc = oc_need(t, "pid", &p->rt_pid);
		if (!rc)
			rc = oc_need(t, "runtime", &p->rt_runtime);
	} else {
		rc = oc_need(t, "prev_pid", &p->prev_pid);
		if (!rc)
			rc = oc_need(t, "next_pid", &p->next_pid);
		p->prev_comm = ana_field_find(t, "prev_comm");
		p->next_comm = ana_field_find(t, "next_comm");
	}
	if (rc)
		return rc;
	if (o->prio && az->opt.filter) {
		pp_err("oncpu: --prio and --filter exclude each other");
		return PP_EUSAGE;
	}
	if (o->prio && !(prio = oncpu_prio_filter(o->prio))) {
		pp_err("oncpu: bad --prio list '%s': expected 1-99 or 0,5,10-20", o->prio);
		return PP_ESYNTAX;
	}
	if (prio || az->opt.filter)
		rc = ana_expr_compile(az, t, prio ? "--prio" : "--filter",
				      prio ? prio : az->opt.filter, &p->filter);
	free(prio);
	return rc;
}

static void oc_str_field(const struct pp_event *ev, const struct pp_field *f, char *buf, size_t sz)
{
	buf[0] = '\0';
	if (f && f->offset + f->size <= ev->raw_sz) {
		size_t n = f->size < sz - 1 ? f->size : sz - 1;
		memcpy(buf, ev->raw + f->offset, n);
		buf[n] = '\0';
	}
}

static uint64_t oc_comm_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static struct oc_row *oc_row_get(struct oc_priv *p, uint32_t ins, uint32_t other, const char *comm)
{
	uint64_t key = p->only_comm ? oc_comm_hash(comm) ^ ((uint64_t)ins << 40)
				    : ((uint64_t)ins << 32) | other;
	void **slot = pp_u64map_slot(&p->row_map, key);
	struct oc_row *r = *slot;

	if (!r) {
		r = *slot = pp_xcalloc(1, sizeof(*r));
		r->ins = ins;
		r->other = p->only_comm ? 0 : other;
		PP_VEC_PUSH(p->rows, p->nr_rows, p->cap_rows, r);
	}
	/* the latest name: a task seen before its exec is shown by what it became */
	if (*comm && strcmp(r->comm, comm))
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	return r;
}

static struct oc_cpu *oc_cpu_get(struct oc_priv *p, uint32_t cpu)
{
	if (cpu >= p->nr_cpus) {
		size_t n = cpu + 1 > 2 * p->nr_cpus ? cpu + 1 : 2 * p->nr_cpus;
		p->cpus = pp_xrealloc(p->cpus, n * sizeof(*p->cpus));
		memset(p->cpus + p->nr_cpus, 0, (n - p->nr_cpus) * sizeof(*p->cpus));
		p->nr_cpus = n;
	}
	return &p->cpus[cpu];
}

static void oc_switch(struct pp_az *az, const struct pp_event *ev)
{
	struct oc_priv *p = az->priv;
	struct oc_cpu *c = oc_cpu_get(p, ev->cpu);
	uint32_t prev = (uint32_t)ana_field_read(ev, p->prev_pid);
	char comm[32];

	if (c->known && prev && ev->time_ns >= c->last_ns) {
		struct oc_row *r;
		uint64_t run = ev->time_ns - (c->cur == prev ? c->run_start_ns : c->last_ns);

		oc_str_field(ev, p->prev_comm, comm, sizeof(comm));
		r = oc_row_get(p, ev->cpu, prev, comm);
		r->runtime_ns += ev->time_ns - c->last_ns;
		r->nr_run++;
		if (run > r->max_ns)
			r->max_ns = run;
	}
	c->known = true;
	c->cur = (uint32_t)ana_field_read(ev, p->next_pid);
	oc_str_field(ev, p->next_comm, c->cur_comm, sizeof(c->cur_comm));
	c->last_ns = c->run_start_ns = ev->time_ns;
}

static void oc_runtime(struct pp_az *az, const struct pp_event *ev)
{
	struct oc_priv *p = az->priv;
	uint32_t pid = (uint32_t)ana_field_read(ev, p->rt_pid);
	uint64_t runtime = ana_field_read(ev, p->rt_runtime);
	struct oc_row *r;
	char comm[32];

	if (pid != ev->tid)
		return;
	if (!ana_field_str(ev, "comm", comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "%s", ana_comm(az->s, ev->tid));
	r = oc_row_get(p, ev->tid, ev->cpu, comm);
	r->runtime_ns += runtime;
	r->nr_run++;
	if (runtime > r->max_ns)
		r->max_ns = runtime;
}

static void oc_event(struct pp_az *az, const struct pp_event *ev)
{
	struct oc_priv *p = az->priv;

	if (p->filter && !ana_expr_eval(az, p->filter, ev))
		return;
	if (p->thread_mode)
		oc_runtime(az, ev);
	else
		oc_switch(az, ev);
}

/* Charge the runs still going to the interval that ends at @now_ns. */
static void oc_cut_runs(struct oc_priv *p, uint64_t now_ns)
{
	for (size_t i = 0; i < p->nr_cpus; i++) {
		struct oc_cpu *c = &p->cpus[i];
		if (!c->known || !c->cur || now_ns <= c->last_ns)
			continue;
		struct oc_row *r = oc_row_get(p, (uint32_t)i, c->cur, c->cur_comm);
		r->runtime_ns += now_ns - c->last_ns;
		if (now_ns - c->run_start_ns > r->max_ns)
			r->max_ns = now_ns - c->run_start_ns;
		c->last_ns = now_ns;
	}
}

static int oc_cmp_row(const void *a, const void *b)
{
	const struct oc_row *x = *(struct oc_row *const *)a, *y = *(struct oc_row *const *)b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	if (x->runtime_ns != y->runtime_ns)
		return x->runtime_ns > y->runtime_ns ? -1 : 1;
	if (x->other != y->other)
		return x->other < y->other ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* perf-prof's free-form lines: one per CPU (or thread) with all its rows. */
static void oc_print_text(struct pp_az *az)
{
	struct oc_priv *p = az->priv;
	struct pp_buf *b = &p->line;

	if (p->thread_mode)
		pp_buf_addf(b, "THREAD %-16s %-7s CPUS(ms)\n", "COMM", "SUM(ms)");
	else
		pp_buf_addf(b, "CPU %-7s COMM:TID(ms%s)\n", "SUM(ms)",
			    az->opt.detail ? "/switches/max_ms" : "");
	for (size_t i = 0; i < p->nr_rows;) {
		size_t j = i;
		uint64_t sum = 0;

		while (j < p->nr_rows && p->rows[j]->ins == p->rows[i]->ins)
			sum += p->rows[j++]->runtime_ns;
		if (p->thread_mode)
			pp_buf_addf(b, "%-6u %-16s %-7llu ", p->rows[i]->ins, p->rows[i]->comm,
				    (unsigned long long)(sum / 1000000));
		else
			pp_buf_addf(b, "%03u %-7llu ", p->rows[i]->ins,
				    (unsigned long long)(sum / 1000000));
		for (; i < j; i++) {
			const struct oc_row *r = p->rows[i];
			if (p->thread_mode)
				pp_buf_addf(b, "%u(%llums) ", r->other,
					    (unsigned long long)(r->runtime_ns / 1000000));
			else if (p->only_comm)
				pp_buf_addf(b, "%s(%.1fms) ", r->comm, r->runtime_ns / 1e6);
			else if (az->opt.detail)
				pp_buf_addf(b, "%s:%u(%.1fms/%llu/%.1fms) ", r->comm, r->other,
					    r->runtime_ns / 1e6, (unsigned long long)r->nr_run,
					    r->max_ns / 1e6);
			else
				pp_buf_addf(b, "%s:%u(%.1fms) ", r->comm, r->other,
					    r->runtime_ns / 1e6);
		}
		pp_buf_addch(b, '\n');
	}
}

static void oc_print_table(struct pp_az *az)
{
	struct oc_priv *p = az->priv;
	struct pp_table *t = pp_table_new();

	pp_table_col(t, p->thread_mode ? "THREAD" : "CPU", p->thread_mode ? "tid" : "cpu", 0, 0);
	if (!p->only_comm || p->thread_mode)
		pp_table_col(t, p->thread_mode ? "CPU" : "TID", p->thread_mode ? "cpu" : "tid",
			     0, 0);
	pp_table_col(t, "COMM", "comm", PP_COL_LEFT, 0);
	pp_table_col(t, "ms", "ms", 0, 0);
	pp_table_col(t, "switches", p->thread_mode ? "updates" : "switches", 0, 0);
	pp_table_col(t, "max_ms", "max_ms", 0, 0);
	for (size_t i = 0; i < p->nr_rows; i++) {
		const struct oc_row *r = p->rows[i];
		pp_table_row(t);
		pp_table_u64(t, r->ins);
		if (!p->only_comm || p->thread_mode)
			pp_table_u64(t, r->other);
		pp_table_str(t, r->comm);
		pp_table_num(t, "%.3f", r->runtime_ns / 1e6);
		pp_table_u64(t, r->nr_run);
		pp_table_num(t, "%.3f", r->max_ns / 1e6);
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "oncpu");
	pp_table_free(t);
}

static void oc_report(struct pp_az *az, uint64_t now_ns)
{
	struct oc_priv *p = az->priv;
	char when[48];

	if (!p->thread_mode)
		oc_cut_runs(p, now_ns);
	if (!p->nr_rows)
		return;
	qsort(p->rows, p->nr_rows, sizeof(*p->rows), oc_cmp_row);
	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_TEXT) {
		ana_report_header(az);
		pp_buf_addf(&p->line, "%s\n", ana_time_str(az->s, now_ns, when, sizeof(when)));
		oc_print_text(az);
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	} else {
		oc_print_table(az);
	}
	for (size_t i = 0; i < p->nr_rows; i++)
		free(p->rows[i]);
	p->nr_rows = 0;
	pp_u64map_release(&p->row_map);
}

static void oc_interval(struct pp_az *az, uint64_t now_ns)
{
	oc_report(az, now_ns);
}

static int oc_finish(struct pp_az *az)
{
	oc_report(az, ana_capture_end_ns(az->s));
	return 0;
}

static void oc_release(struct pp_az *az)
{
	struct oc_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_rows; i++)
		free(p->rows[i]);
	free(p->rows);
	pp_u64map_release(&p->row_map);
	free(p->cpus);
	pp_expr_free(p->filter);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_oncpu_ops = {
	.summary = "who runs on which CPU: per CPU (sched_switch) or per thread with -p/-t",
	.usage = "pp-analyze FILE oncpu [-C CPUS | -p PIDS | -t TIDS] [--detail] "
		 "[--prio LIST | --filter EXPR] [--only-comm] [-i MS]",
	.examples = "  pp-record --for 'oncpu' -a --duration 10\n"
		    "  pp-analyze pp.capture oncpu -C 0-3 --detail\n"
		    "  pp-analyze pp.capture oncpu --prio 1-99\n"
		    "  pp-analyze pp.capture oncpu --only-comm -i 5000\n"
		    "  pp-record --for 'oncpu -p 2347' --duration 10\n"
		    "  pp-analyze pp.capture oncpu -p 2347\n",
	.priv_size = sizeof(struct oc_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = oc_set_events,
	.init = oc_init,
	.event = oc_event,
	.interval = oc_interval,
	.finish = oc_finish,
	.release = oc_release,
};
