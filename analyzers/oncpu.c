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
 * default) and at the end.  State (--state-out): the rows of the range (one
 * table), and per range each CPU's first switch (head) and the task it ends
 * running (tail): two adjacent ranges charge the run across the cut as one.
 * Not here: perf-prof's co-running siblings.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/state/state.h"
#include "analyzers/oncpu.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/percpu.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "common/wire.h"

struct oc_row {
	uint32_t ins;			/* CPU, or thread in thread mode */
	uint32_t other;			/* thread, or CPU in thread mode */
	char comm[32];
	uint64_t comm_ns;		/* when @comm was seen: merged rows keep the latest */
	uint64_t runtime_ns, nr_run, max_ns;
};

/* A CPU's first switch in a range: it ends the run the range before left going. */
struct oc_head {
	uint64_t time_ns;
	uint32_t prev;
	char prev_comm[32];
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
	bool rec;			/* --state-out: note heads */
	struct pp_u64map rec_heads;	/* cpu -> struct oc_head */
	struct ana_edges edges;		/* a state read: per source id, a struct ana_edge of
					 * heads (cpu -> struct oc_head), the CPUs' runs at its
					 * end (cpu -> struct oc_cpu, known), and its end_ns,
					 * where a report cuts the runs still going */
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
	p->rec = ana_state_recording(az);
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

static struct oc_row *oc_row_get(struct oc_priv *p, uint32_t ins, uint32_t other, const char *comm,
			  uint64_t time_ns)
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
	if (*comm && time_ns >= r->comm_ns) {
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
		r->comm_ns = time_ns;
	}
	return r;
}

static struct oc_cpu *oc_cpu_get(struct oc_priv *p, uint32_t cpu)
{
	p->cpus = pp_percpu_grow(p->cpus, &p->nr_cpus, cpu, sizeof(*p->cpus));
	return &p->cpus[cpu];
}

/* A switch at @t_ns on @cpu (known as @c) from @prev: its run is charged. */
static void oc_charge(struct oc_priv *p, uint32_t cpu, const struct oc_cpu *c, uint64_t t_ns,
		      uint32_t prev, const char *comm)
{
	struct oc_row *r;
	uint64_t run;

	if (!prev || t_ns < c->last_ns)
		return;
	run = t_ns - (c->cur == prev ? c->run_start_ns : c->last_ns);
	r = oc_row_get(p, cpu, prev, comm, t_ns);
	r->runtime_ns += t_ns - c->last_ns;
	r->nr_run++;
	if (run > r->max_ns)
		r->max_ns = run;
}

static void oc_switch(struct pp_az *az, const struct pp_event *ev)
{
	struct oc_priv *p = az->priv;
	struct oc_cpu *c = oc_cpu_get(p, ev->cpu);
	uint32_t prev = (uint32_t)ana_field_read(ev, p->prev_pid);
	char comm[32];

	if (c->known) {
		oc_str_field(ev, p->prev_comm, comm, sizeof(comm));
		oc_charge(p, ev->cpu, c, ev->time_ns, prev, comm);
	} else if (p->rec && !pp_u64map_get(&p->rec_heads, ev->cpu)) {
		struct oc_head *h = pp_xcalloc(1, sizeof(*h));	/* the range before's run ends */
		h->time_ns = ev->time_ns;
		h->prev = prev;
		oc_str_field(ev, p->prev_comm, h->prev_comm, sizeof(h->prev_comm));
		pp_u64map_put(&p->rec_heads, ev->cpu, h);
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
	r = oc_row_get(p, ev->tid, ev->cpu, comm, ev->time_ns);
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

/* Charge @c's run still going to the interval that ends at @now_ns. */
static void oc_cut_run(struct oc_priv *p, uint32_t cpu, struct oc_cpu *c, uint64_t now_ns)
{
	struct oc_row *r;

	if (!c->known || !c->cur || now_ns <= c->last_ns)
		return;
	r = oc_row_get(p, cpu, c->cur, c->cur_comm, now_ns);
	r->runtime_ns += now_ns - c->last_ns;
	if (now_ns - c->run_start_ns > r->max_ns)
		r->max_ns = now_ns - c->run_start_ns;
	c->last_ns = now_ns;
}

static void oc_settle(struct pp_az *az);

/* Charge the runs still going to the interval that ends at @now_ns. */
static void oc_cut_runs(struct pp_az *az, uint64_t now_ns)
{
	struct oc_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_cpus; i++)
		oc_cut_run(p, (uint32_t)i, &p->cpus[i], now_ns);
	oc_settle(az);		/* a report of states: each range's runs at its end */
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
		oc_cut_runs(az, now_ns);
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

/* --- state (docs/state-format.md "oncpu") ------------------------------------------------ */

static int oc_cmp_key(const void *a, const void *b)
{
	const struct oc_row *x = *(struct oc_row *const *)a, *y = *(struct oc_row *const *)b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	if (x->other != y->other)
		return x->other < y->other ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

static void put_edge(struct pp_buf *b, uint64_t end_ns, const struct pp_u64map *heads,
		     const struct pp_u64map *tails, const struct oc_cpu *cpus, size_t nr_cpus)
{
	size_t n;
	uint64_t *keys = pp_u64map_keys(heads, &n);

	pp_wire_put_varint(b, end_ns);
	pp_wire_put_varint(b, n);
	for (size_t i = 0; i < n; i++) {
		const struct oc_head *h = pp_u64map_get(heads, keys[i]);
		pp_wire_put_varint(b, keys[i]);
		pp_wire_put_varint(b, h->time_ns);
		pp_wire_put_varint(b, h->prev);
		pp_wire_put_str(b, h->prev_comm);
	}
	free(keys);
	if (!tails) {	/* a replay's: its CPUs (none per thread) */
		n = 0;
		for (size_t i = 0; i < nr_cpus; i++)
			n += cpus[i].known;
		keys = pp_xmalloc((n + 1) * sizeof(*keys));
		n = 0;
		for (size_t i = 0; i < nr_cpus; i++)
			if (cpus[i].known)
				keys[n++] = i;
	} else {
		keys = pp_u64map_keys(tails, &n);
	}
	pp_wire_put_varint(b, n);
	for (size_t i = 0; i < n; i++) {
		const struct oc_cpu *c = !tails ? &cpus[keys[i]] : pp_u64map_get(tails, keys[i]);
		pp_wire_put_varint(b, keys[i]);
		pp_wire_put_varint(b, c->cur);
		pp_wire_put_str(b, c->cur_comm);
		pp_wire_put_varint(b, c->last_ns);
		pp_wire_put_varint(b, c->run_start_ns);
	}
	free(keys);
}

static int oc_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct oc_priv *p = az->priv;
	struct oc_row **v = pp_xmalloc((p->nr_rows + 1) * sizeof(*v));
	const unsigned *ids;
	size_t n = ana_state_sources(az, &ids);

	if (p->nr_rows) {	/* a range without a run (a part of -j N): no rows, NULL */
		memcpy(v, p->rows, p->nr_rows * sizeof(*v));
		qsort(v, p->nr_rows, sizeof(*v), oc_cmp_key);
	}
	pp_wire_put_varint(out, p->nr_rows);
	for (size_t i = 0; i < p->nr_rows; i++) {
		pp_wire_put_varint(out, v[i]->ins);
		pp_wire_put_varint(out, v[i]->other);
		pp_wire_put_str(out, v[i]->comm);
		pp_wire_put_varint(out, v[i]->comm_ns);
		pp_wire_put_varint(out, v[i]->runtime_ns);
		pp_wire_put_varint(out, v[i]->nr_run);
		pp_wire_put_varint(out, v[i]->max_ns);
	}
	free(v);
	if (p->rec) {
		pp_wire_put_varint(out, 1);
		put_edge(out, ana_capture_end_ns(az->s), &p->rec_heads, NULL, p->cpus, p->nr_cpus);
		return 0;
	}
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct ana_edge *e = ana_edge_of(&p->edges, ids[i]);
		put_edge(out, e->end_ns, &e->heads, &e->tails, NULL, 0);
	}
	return 0;
}

/* A string of a state that fits a comm[32]. */
static bool read_comm(struct pp_wire *r, char *buf, const char *what)
{
	const char *s = pp_wire_str(r);

	if (pp_wire_ok(r) && strlen(s) >= 32) {
		pp_wire_fail(r, PP_EBAD_RECORD, "%s: a name of %zu bytes", what, strlen(s));
		return false;
	}
	snprintf(buf, 32, "%s", s);
	return pp_wire_ok(r);
}

static int read_edge(struct pp_wire *r, struct ana_edge *e)
{
	size_t n;
	uint64_t prev = 0;

	e->end_ns = pp_wire_varint(r);
	n = pp_wire_count(r, 4, SIZE_MAX, "heads");
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint32_t cpu = pp_wire_u32(r, "cpu");
		struct oc_head h = { .time_ns = pp_wire_varint(r) };
		h.prev = pp_wire_u32(r, "thread");
		if (!read_comm(r, h.prev_comm, "head"))
			return r->err;
		if (i && cpu <= prev)
			return pp_wire_fail(r, PP_EBAD_RECORD, "heads not by cpu");
		prev = cpu;
		pp_u64map_put(&e->heads, cpu, memcpy(pp_xmalloc(sizeof(h)), &h, sizeof(h)));
	}
	n = pp_wire_count(r, 5, SIZE_MAX, "tails");
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint32_t cpu = pp_wire_u32(r, "cpu");
		struct oc_cpu c = { .known = true, .cur = pp_wire_u32(r, "thread") };
		if (!read_comm(r, c.cur_comm, "tail"))
			return r->err;
		c.last_ns = pp_wire_varint(r);
		c.run_start_ns = pp_wire_varint(r);
		if (pp_wire_ok(r) && ((i && cpu <= prev) || c.run_start_ns > c.last_ns))
			return pp_wire_fail(r, PP_EBAD_RECORD, "tail %zu: cpu %u, run from %llu to %llu",
					    i, cpu, (unsigned long long)c.run_start_ns,
					    (unsigned long long)c.last_ns);
		prev = cpu;
		if (pp_wire_ok(r))
			pp_u64map_put(&e->tails, cpu, memcpy(pp_xmalloc(sizeof(c)), &c, sizeof(c)));
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

static int oc_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct oc_priv *p = az->priv;
	size_t n = pp_wire_count(in, 8, SIZE_MAX, "rows");

	for (size_t i = 0; i < n && pp_wire_ok(in); i++) {
		uint32_t ins = pp_wire_u32(in, "instance"), other = pp_wire_u32(in, "other");
		char comm[32];
		uint64_t comm_ns, runtime, nr_run, max;
		struct oc_row *r;

		if (!read_comm(in, comm, "row"))
			return in->err;
		comm_ns = pp_wire_varint(in);
		runtime = pp_wire_varint(in);
		nr_run = pp_wire_varint(in);
		max = pp_wire_varint(in);
		if (!pp_wire_ok(in))
			return in->err;
		if (p->only_comm && !p->thread_mode && other)
			return pp_wire_fail(in, PP_EBAD_RECORD, "row %zu: thread %u, %llu ns in %llu runs",
					    i, other, (unsigned long long)runtime,
					    (unsigned long long)nr_run);
		r = oc_row_get(p, ins, other, comm, comm_ns);
		if (r->runtime_ns + runtime < runtime || r->nr_run + nr_run < nr_run)
			return pp_wire_fail(in, PP_EBAD_RECORD, "row %zu: a sum overflows", i);
		r->runtime_ns += runtime;
		r->nr_run += nr_run;
		if (max > r->max_ns)
			r->max_ns = max;
	}
	return pp_wire_ok(in) ? ana_edge_read(az, in, &p->edges, 3, read_edge) : in->err;
}

/* A CPU's first switch in the later range ends the run the earlier left going. */
static bool oc_meet(void *arg, uint64_t cpu, const void *head, void *tail)
{
	const struct oc_head *h = head;
	const struct oc_cpu *c = tail;

	if (c)
		oc_charge(arg, (uint32_t)cpu, c, h->time_ns, h->prev, h->prev_comm);
	return !c;	/* the CPU's first switch yet */
}

/* Adjacent ranges: each CPU's first switch in the second ends the run the first left going. */
static void oc_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct oc_priv *p = az->priv;

	ana_edge_join(&p->edges, before, after, oc_meet, p);
}

/* Before a report of states: each range's runs still going, cut at its end. */
static void oc_settle(struct pp_az *az)
{
	struct oc_priv *p = az->priv;

	for (size_t i = 0; i < p->edges.nr; i++) {
		const struct ana_edge *e = ana_edges_get(&p->edges, (unsigned)i);
		size_t n;
		uint64_t *keys;

		if (!e)
			continue;
		keys = pp_u64map_keys(&e->tails, &n);
		for (size_t k = 0; k < n; k++)
			oc_cut_run(p, (uint32_t)keys[k], pp_u64map_get(&e->tails, keys[k]), e->end_ns);
		free(keys);
	}
	ana_edge_release(&p->edges);
}

static void oc_release(struct pp_az *az)
{
	struct oc_priv *p = az->priv;

	pp_u64map_free_all(&p->rec_heads);
	ana_edge_release(&p->edges);

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
	.state_version = 1,
	.state_write = oc_state_write,
	.state_read = oc_state_read,
	.state_join = oc_state_join,
};
