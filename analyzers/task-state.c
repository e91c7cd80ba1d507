/* SPDX-License-Identifier: MIT */
/*
 * task-state.c - time tasks spend in each scheduler state (perf-prof's task-state).
 *
 * States: R (running), S, D, T, t, I and RD (runnable but waiting for a CPU).
 * Per task a tiny state machine driven by three events:
 *   switch-out  records R = now - switch-in; the new state is prev_state, or R
 *               when the task was preempted (TASK_REPORT_MAX, 0x100 since 4.14,
 *               TASK_STATE_MAX before): prev_state is read in the 4.14 encoding
 *               from the capture's stored format (ana_prev_state_canon());
 *   wakeup      records the sleep (S/D/T/t/I) = now - switch-out; state R, and
 *               the run delay starts (kept running if the task was already R);
 *   switch-in   records RD = now - wakeup (or - preemption).
 * R and RD are told apart by whether the task is on a CPU, so that a missing
 * switch (perf drops an event now and then without counting it as lost)
 * cannot turn a wait into a run or a run into a delay.
 * A dead task (prev_state X/Z) is forgotten.  With -S/-D only the S/D sleeps
 * of tasks seen going to sleep are measured (perf-prof's modes 2 and 3).
 * -p/-t/--filter select tasks: a switch concerns prev and next separately.
 * --than T prints every longer stay with the event that began it and the one
 * that ended it; --flame-graph weighs the switch-out stacks by the sleep time
 * (an off-CPU flame graph, in ns).  Losses drop every task's state.
 *
 * Its mergeable state (--state-out: the histograms and each capture range's
 * edges) is task-state-merge.c's; the types both share, task-state-internal.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/task-state.h"
#include "analyzers/task-state-internal.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/flamegraph.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/selector.h"
#include "common/stackmap.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/units.h"
#include "common/vec.h"
#include "common/wire.h"

static const char *const ts_names[TS__NR] = { "R", "S", "D", "T", "t", "I", "RD" };

enum ts_kind { TS_SWITCH, TS_WAKEUP, TS_WAKEUP_NEW };

struct ts_sel {
	enum ts_kind kind;
	const struct pp_field *prev_pid, *prev_state, *next_pid, *prev_comm, *next_comm;
	const struct pp_field *pid, *comm;
	struct ana_prev_state ps;	/* TS_SWITCH: its capture's prev_state encoding */
};

/* A copy of the event that began a stay, for --than. */
struct ts_saved {
	bool valid;
	struct pp_event ev;
	struct pp_buf raw;
	uint64_t *stack;
	uint32_t cap_stack;
};

static int ts_set_events(struct pp_az *az, struct pp_strlist *events)
{
	/* the glob: sched_wakeup_new is used when the capture has it */
	pp_strlist_push(events, "sched:sched_switch");
	pp_strlist_push(events, "sched:sched_wakeup*");
	return 0;
}

static int ts_field(const struct ana_evtype *t, const char *name, const struct pp_field **f)
{
	*f = ana_field_find(t, name);
	if (*f)
		return 0;
	pp_err("task-state: event %s has no field '%s'", t->name, name);
	return PP_EUNKNOWN_FIELD;
}

static int ts_init_sels(struct pp_az *az)
{
	struct ts_priv *p = az->priv;
	int rc = 0;

	p->sels = pp_xcalloc(az->nr_sels ? az->nr_sels : 1, sizeof(*p->sels));
	for (size_t i = 0; i < az->nr_sels && !rc; i++) {
		const struct ana_evtype *t = az->sels[i].type;
		struct ts_sel *k = &p->sels[i];

		az->sels[i].priv = k;
		if (t->event && !strcmp(t->event, "sched_switch")) {
			k->kind = TS_SWITCH;
			ana_prev_state_init(az->s, t, &k->ps);
			rc = ts_field(t, "prev_pid", &k->prev_pid);
			if (!rc)
				rc = ts_field(t, "prev_state", &k->prev_state);
			if (!rc)
				rc = ts_field(t, "next_pid", &k->next_pid);
			k->prev_comm = ana_field_find(t, "prev_comm");
			k->next_comm = ana_field_find(t, "next_comm");
		} else if (t->event && !strncmp(t->event, "sched_wakeup", 12)) {
			k->kind = !strcmp(t->event, "sched_wakeup_new") ? TS_WAKEUP_NEW : TS_WAKEUP;
			rc = ts_field(t, "pid", &k->pid);
			k->comm = ana_field_find(t, "comm");
		} else {
			pp_err("task-state: cannot use event %s", t->name);
			rc = PP_EUSAGE;
		}
	}
	return rc;
}

static void ts_parse_comms(struct ts_priv *p, const char *list)
{
	const char *s = list;

	while (s && *s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len) {
			p->comms = pp_xrealloc(p->comms, (p->nr_comms + 1) * sizeof(*p->comms));
			p->comms[p->nr_comms++] = pp_xstrndup(s, len);
		}
		s = e ? e + 1 : NULL;
	}
}

static int ts_init(struct pp_az *az)
{
	struct ts_priv *p = az->priv;
	const struct task_state_opts *o = az->opts;
	int rc;

	/* prev_state is read in the 4.14 encoding, whatever the capture's kernel wrote */
	p->report_max = ANA_PS_PREEMPT;
	p->dead = ANA_PS_X | ANA_PS_Z;
	p->report = ST_S | ST_D | ST_T | ST_TT | ST_I;
	if (o->no_interruptible)
		p->report &= ~(uint64_t)ST_S;
	p->sd = o->interruptible || o->uninterruptible;
	p->sd_mask = (o->interruptible ? ST_S : 0) | (o->uninterruptible ? ST_D : 0);
	ts_parse_comms(p, az->opt.filter);
	p->filtering = az->nr_pids || az->nr_tids || p->nr_comms;
	if (ana_state_recording(az) && (az->opt.than_ns || az->opt.flame_graph)) {
		pp_err("task-state: %s with --state-out: a state holds the table only (replay the "
		       "capture for %s)", az->opt.than_ns ? "--than" : "--flame-graph",
		       az->opt.than_ns ? "the long stays" : "the flame graph");
		return PP_EUSAGE;
	}
	p->rec = ana_state_recording(az);
	if (az->opt.flame_graph)
		p->flame = pp_flame_new();
	rc = ts_init_sels(az);
	return rc;
}

/* --- task selection --------------------------------------------------------- */

static bool ts_selected(struct pp_az *az, const struct pp_event *ev, uint32_t tid,
			const struct pp_field *comm_field)
{
	struct ts_priv *p = az->priv;
	char comm[32];

	if (!p->filtering)
		return true;
	if (az->nr_tids && pp_list_has(az->tids, az->nr_tids, tid))
		return true;
	if (az->nr_pids && pp_list_has(az->pids, az->nr_pids, ana_task_pid(az->s, tid)))
		return true;
	if (az->opt.inherit &&
	    ana_task_forked_by(az->s, tid, az->pids, az->nr_pids, az->tids, az->nr_tids))
		return true;
	if (p->nr_comms) {
		const char *c = NULL;
		if (comm_field && comm_field->offset + comm_field->size <= ev->raw_sz) {
			size_t n = comm_field->size < sizeof(comm) - 1 ? comm_field->size
								       : sizeof(comm) - 1;
			memcpy(comm, ev->raw + comm_field->offset, n);
			comm[n] = '\0';
			c = comm;
		} else {
			c = ana_comm(az->s, tid);
		}
		for (size_t i = 0; i < p->nr_comms; i++)
			if (pp_glob_match(p->comms[i], c))
				return true;
	}
	return false;
}

/* --- tasks and statistics ----------------------------------------------------- */

struct ts_task *az_task_state_task_get(struct ts_priv *p, uint32_t tid, bool create)
{
	void **slot;

	if (!create)
		return pp_u64map_get(&p->tasks, tid);
	slot = pp_u64map_slot(&p->tasks, tid);
	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct ts_task));
	return *slot;
}

static void ts_task_free(struct ts_task *t)
{
	if (!t)
		return;
	if (t->saved) {
		pp_buf_release(&t->saved->raw);
		free(t->saved->stack);
		free(t->saved);
	}
	free(t);
}

void az_task_state_task_drop(struct ts_priv *p, uint32_t tid)
{
	ts_task_free(pp_u64map_del(&p->tasks, tid));
}

static int ts_key_of(uint64_t state)
{
	switch (state) {
	case ST_S: return TS_S;
	case ST_D: return TS_D;
	case ST_T: return TS_T;
	case ST_TT: return TS_TT;
	case ST_I: return TS_I;
	default: return -1;	/* combinations are not reported (as perf-prof) */
	}
}

/* The statistics of (@ins, @key), made empty when new. */
struct ts_stat *az_task_state_stat_get(struct ts_priv *p, uint32_t ins, enum ts_key key)
{
	void **slot = pp_u64map_slot(&p->stat_map, ((uint64_t)ins << 8) | key);
	struct ts_stat *st = *slot;

	if (!st) {
		st = *slot = pp_xcalloc(1, sizeof(*st));
		st->tid = ins;
		st->key = key;
		pp_hist_init(&st->h);
		PP_VEC_PUSH(p->stats, p->nr_stats, p->cap_stats, st);
	}
	return st;
}

static void ts_record(struct pp_az *az, uint32_t tid, enum ts_key key, uint64_t delta)
{
	struct ts_priv *p = az->priv;

	if (p->mute)
		return;	/* a head's stay: counted when the head is replayed */
	pp_hist_add(&az_task_state_stat_get(p, az->opt.perins ? tid : 0, key)->h, delta);
	p->nr_stays++;
}

/* Keep a copy of @ev as the event that began the task's current state (--than). */
static void ts_save(struct ts_task *t, const struct pp_event *ev)
{
	struct ts_saved *s = t->saved;

	if (!s)
		s = t->saved = pp_xcalloc(1, sizeof(*s));
	s->ev = *ev;
	pp_buf_reset(&s->raw);
	pp_buf_add(&s->raw, ev->raw, ev->raw_sz);
	s->ev.raw = (const uint8_t *)s->raw.data;
	if (ev->nr_stack > s->cap_stack) {
		s->cap_stack = ev->nr_stack;
		s->stack = pp_xrealloc(s->stack, s->cap_stack * sizeof(*s->stack));
	}
	if (ev->nr_stack)
		memcpy(s->stack, ev->stack, ev->nr_stack * sizeof(*s->stack));
	s->ev.stack = s->stack;
	s->ev.extra = NULL;
	s->ev.extra_sz = 0;
	s->valid = true;
}

static void ts_print_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ts_priv *p = az->priv;

	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	if (az->opt.callchain && ev->nr_stack)
		ana_stack_print(az->s, ev, &p->line);
}

/* --than: one long stay, with the events that began and ended it. */
static void ts_print_stay(struct pp_az *az, struct ts_task *t, uint32_t tid, const char *what,
			  enum ts_key key, uint64_t delta, const struct pp_event *ev)
{
	struct ts_priv *p = az->priv;
	char wall[48];

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		pp_buf_addf(&p->line, "{\"time\":\"%s\",\"tid\":%u,\"comm\":",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)), tid);
		pp_buf_add_json_str(&p->line, ana_comm(az->s, tid));
		pp_buf_addf(&p->line, ",\"what\":\"%s\",\"state\":\"%s\",\"us\":%.3f}\n", what,
			    ts_names[key], delta / 1000.0);
	} else {
		pp_buf_addf(&p->line, "%s  task-state: %u %s %s %llu ms\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)), tid,
			    ana_comm(az->s, tid), what, (unsigned long long)(delta / 1000000));
		if (t->saved && t->saved->valid)
			ts_print_event(az, &t->saved->ev);
		ts_print_event(az, ev);
	}
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

/* --- the state machine ------------------------------------------------------------ */

void az_task_state_switch_out(struct pp_az *az, const struct pp_event *ev, uint32_t tid,
			  uint64_t prev_state)
{
	struct ts_priv *p = az->priv;
	uint64_t state = prev_state == p->report_max ? ST_RUNNING : prev_state;
	struct ts_task *t;

	if (p->sd && !(state & p->sd_mask))
		return;
	t = az_task_state_task_get(p, tid, true);
	if (!p->sd && t->known && t->oncpu && ev->time_ns > t->time_ns)
		ts_record(az, tid, TS_R, ev->time_ns - t->time_ns);
	t->oncpu = false;
	if (state & p->dead) {
		az_task_state_task_drop(p, tid);
		return;
	}
	t->known = true;
	t->state = state;
	t->time_ns = ev->time_ns;
	t->leaf = NULL;
	if (p->flame && state != ST_RUNNING) {
		void **slot = pp_stackmap_slot(&p->stacks, ana_stack_key(az->s, ev), ev->stack,
					       ev->nr_stack);
		if (!*slot)
			*slot = ana_stack_node(az, p->flame, ev);
		t->leaf = *slot;
	}
	if (az->opt.than_ns)
		ts_save(t, ev);
}

void az_task_state_wakeup(struct pp_az *az, const struct pp_event *ev, uint32_t tid, bool is_new)
{
	struct ts_priv *p = az->priv;
	struct ts_task *t = az_task_state_task_get(p, tid, !p->sd);

	if (!t)
		return;
	if (t->known && ev->time_ns > t->time_ns) {
		int key = ts_key_of(t->state & p->report);
		uint64_t delta = ev->time_ns - t->time_ns;
		if (key >= 0) {
			ts_record(az, tid, key, delta);
			if (az->opt.than_ns && delta > az->opt.than_ns)
				ts_print_stay(az, t, tid, "WAIT", key, delta, ev);
			if (p->flame && t->leaf && (!az->opt.than_ns || delta > az->opt.than_ns)) {
				char st[8];
				snprintf(st, sizeof(st), "[%s]", ts_names[key]);
				pp_flame_add(pp_flame_child(p->flame, t->leaf, st, strlen(st)),
					     delta);
			}
		}
	}
	if (p->sd) {
		az_task_state_task_drop(p, tid);
		return;
	}
	if (t->state != ST_RUNNING || !t->known || is_new)
		t->time_ns = ev->time_ns;
	t->known = true;
	t->state = ST_RUNNING;
	t->leaf = NULL;
	if (az->opt.than_ns)
		ts_save(t, ev);
}

void az_task_state_switch_in(struct pp_az *az, const struct pp_event *ev, uint32_t tid)
{
	struct ts_priv *p = az->priv;
	struct ts_task *t = az_task_state_task_get(p, tid, true);

	/* switched in while on a CPU: its switch-out is missing, the run delay unknown */
	if (t->known && !t->oncpu && ev->time_ns > t->time_ns && t->state == ST_RUNNING) {
		uint64_t delta = ev->time_ns - t->time_ns;
		ts_record(az, tid, TS_RD, delta);
		if (az->opt.than_ns && delta > az->opt.than_ns)
			ts_print_stay(az, t, tid, "RUNDELAY", TS_RD, delta, ev);
	}
	t->known = true;
	t->oncpu = true;
	t->state = ST_RUNNING;
	t->time_ns = ev->time_ns;
	t->leaf = NULL;
	if (t->saved)
		t->saved->valid = false;
}

static void ts_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ts_priv *p = az->priv;
	const struct ts_sel *k = ev->sel->priv;

	if (k->kind == TS_SWITCH) {
		int64_t prev = (int64_t)ana_field_read(ev, k->prev_pid);
		int64_t next = (int64_t)ana_field_read(ev, k->next_pid);
		if (prev > 0 && ts_selected(az, ev, (uint32_t)prev, k->prev_comm)) {
			uint64_t st = ana_prev_state_canon(&k->ps,
							   ana_field_read(ev, k->prev_state));
			p->mute = az_task_state_head_note(az, (uint32_t)prev, TSH_OUT, ev->time_ns,
							  st);
			az_task_state_switch_out(az, ev, (uint32_t)prev, st);
		}
		if (!p->sd && next > 0 && ts_selected(az, ev, (uint32_t)next, k->next_comm)) {
			p->mute = az_task_state_head_note(az, (uint32_t)next, TSH_IN, ev->time_ns,
							  0);
			az_task_state_switch_in(az, ev, (uint32_t)next);
		}
	} else {
		int64_t pid = (int64_t)ana_field_read(ev, k->pid);
		if (pid > 0 && ts_selected(az, ev, (uint32_t)pid, k->comm)) {
			enum ts_hkind hk = k->kind == TS_WAKEUP_NEW ? TSH_WAKEUP_NEW : TSH_WAKEUP;

			p->mute = az_task_state_head_note(az, (uint32_t)pid, hk, ev->time_ns, 0);
			az_task_state_wakeup(az, ev, (uint32_t)pid, k->kind == TS_WAKEUP_NEW);
		}
	}
	p->mute = false;
}

static void ts_forget_all(struct ts_priv *p)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; pp_u64map_next(&p->tasks, &i, &k, &v);)
		ts_task_free(v);
	pp_u64map_release(&p->tasks);
}

/* A loss: which events went missing is unknown, so every state is suspect. */
static void ts_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct ts_priv *p = az->priv;

	if (p->rec) {	/* the open heads end here: what follows is from nothing */
		struct ts_edge *e = az_task_state_edge_get(p, 0);
		size_t it = 0;
		uint64_t k;
		void *v;

		e->lost = true;
		while (pp_u64map_next(&e->heads, &it, &k, &v))
			((struct ts_head *)v)->closed = true;
	}
	ts_forget_all(p);
}

static void ts_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct ts_priv *p = az->priv;

	if (p->rec) {
		/* another range's exit: that range drops the task, in its time order */
		if (!ana_time_in_range(az, time_ns))
			return;
		p->mute = az_task_state_head_note(az, tid, TSH_DROP, time_ns, 0);
		p->mute = false;
	}
	az_task_state_task_drop(p, tid);
}

/* --- report -------------------------------------------------------------------- */

int az_task_state_cmp_stat(const void *a, const void *b)
{
	const struct ts_stat *x = *(struct ts_stat *const *)a, *y = *(struct ts_stat *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->key - (int)y->key;
}

static void ts_report(struct pp_az *az, uint64_t now_ns)
{
	struct ts_priv *p = az->priv;
	bool perins = az->opt.perins, text = az->out.format == ANA_FMT_TEXT;
	struct pp_table *t;
	char when[48];

	if (!p->nr_stays)
		return;
	qsort(p->stats, p->nr_stats, sizeof(*p->stats), az_task_state_cmp_stat);
	t = pp_table_new();
	if (perins) {
		pp_table_col(t, "thread", "thread", 0, 6);
		pp_table_col(t, "comm", "comm", PP_COL_LEFT, 16);
	}
	pp_table_col(t, "St", "state", PP_COL_LEFT, 2);
	pp_table_col(t, "calls", "calls", 0, 8);
	pp_table_col(t, "total(us)", "total_us", 0, 16);
	pp_table_col(t, "min(us)", "min_us", 0, 12);
	pp_table_col(t, "p50(us)", "p50_us", 0, 12);
	pp_table_col(t, "p95(us)", "p95_us", 0, 12);
	pp_table_col(t, "p99(us)", "p99_us", 0, 12);
	pp_table_col(t, "max(us)", "max_us", 0, 12);
	for (size_t i = 0; i < p->nr_stats; i++) {
		struct ts_stat *st = p->stats[i];
		if (!pp_hist_count(&st->h))
			continue;
		pp_table_row(t);
		if (perins) {
			pp_table_u64(t, st->tid);
			pp_table_str(t, ana_comm(az->s, st->tid));
		}
		pp_table_str(t, ts_names[st->key]);
		pp_table_u64(t, pp_hist_count(&st->h));
		pp_table_num(t, "%.3f", pp_hist_sum(&st->h) / 1000.0);
		pp_table_num(t, "%.3f", pp_hist_min(&st->h) / 1000.0);
		pp_table_num(t, "%.3f", pp_hist_percentile(&st->h, 50) / 1000.0);
		pp_table_num(t, "%.3f", pp_hist_percentile(&st->h, 95) / 1000.0);
		pp_table_num(t, "%.3f", pp_hist_percentile(&st->h, 99) / 1000.0);
		pp_table_num(t, "%.3f", pp_hist_max(&st->h) / 1000.0);
		pp_hist_reset(&st->h);
	}
	if (text) {
		ana_report_header(az);
		fprintf(az->out.fp, "%s\n", ana_time_str(az->s, now_ns, when, sizeof(when)));
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "task-state");
	pp_table_free(t);
	p->nr_stays = 0;
}

static void ts_interval(struct pp_az *az, uint64_t now_ns)
{
	ts_report(az, now_ns);
}

static int ts_finish(struct pp_az *az)
{
	struct ts_priv *p = az->priv;
	char err[256], sub[160];
	int rc = 0;

	az_task_state_resolve_heads(az);	/* a report of states: their heads, from nothing */
	ts_report(az, ana_capture_end_ns(az->s));
	if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "Off-CPU time (task-state)",
						.subtitle = sub, .unit = "ns" };
		const char *host = ana_host(az->s, "hostname");

		snprintf(sub, sizeof(sub), "where tasks slept, weighted by sleep time%s%s",
			 host ? ", on " : "", host ? host : "");
		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("task-state: %s", err);
	}
	return rc;
}

static void ts_release(struct pp_az *az)
{
	struct ts_priv *p = az->priv;

	size_t it = 0;
	uint64_t k;
	void *v;

	ts_forget_all(p);
	while (pp_u64map_next(&p->edges, &it, &k, &v))
		az_task_state_edge_free(v);
	pp_u64map_release(&p->edges);
	for (size_t i = 0; i < p->nr_stats; i++) {
		pp_hist_release(&p->stats[i]->h);
		free(p->stats[i]);
	}
	free(p->stats);
	pp_u64map_release(&p->stat_map);
	for (size_t i = 0; i < p->nr_comms; i++)
		free(p->comms[i]);
	free(p->comms);
	free(p->sels);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}

const struct pp_analyzer_ops az_task_state_ops = {
	.summary = "time in each task state: R S D T t I and RD (run delay), per thread too",
	.usage = "pp-analyze FILE task-state [-S] [-D] [--no-interruptible] [--than T [-g]] "
		 "[--filter comm,...] [--perins] [-i MS] [--flame-graph FILE[.svg]]",
	.examples = "  pp-record --for 'task-state -g' -a --duration 10\n"
		    "  pp-analyze pp.capture task-state -i 1000 --no-interruptible\n"
		    "  pp-analyze pp.capture task-state -p 2347 -SD --than 20ms -g\n"
		    "  pp-analyze pp.capture task-state --filter 'java,py*' -S --than 100ms -g\n"
		    "  pp-analyze pp.capture task-state --perins -t 4242\n"
		    "  pp-analyze pp.capture task-state -g --flame-graph offcpu.svg\n",
	.priv_size = sizeof(struct ts_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_OWN_TASK_FILTER,
	.set_events = ts_set_events,
	.init = ts_init,
	.event = ts_event,
	.lost = ts_lost,
	.task_exit = ts_task_exit,
	.interval = ts_interval,
	.finish = ts_finish,
	.release = ts_release,
	.state_version = 1,
	.state_write = az_task_state_state_write,
	.state_read = az_task_state_state_read,
	.state_join = az_task_state_state_join,
};
