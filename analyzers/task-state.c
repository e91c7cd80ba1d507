/* SPDX-License-Identifier: MIT */
/*
 * task-state.c - time tasks spend in each scheduler state (perf-prof's task-state).
 *
 * States: R (running), S, D, T, t, I and RD (runnable but waiting for a CPU).
 * Per task a tiny state machine driven by three events:
 *   switch-out  records R = now - switch-in; the new state is prev_state, or R
 *               when the task was preempted (prev_state == TASK_REPORT_MAX,
 *               0x100 on kernels >= 4.14, the capture's "release" tells);
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
 * State (--state-out): the histograms, and for each capture range its edges -
 * per task, the first events whose stays depend on the state the task had
 * before the range (its "head", replayed once that state is known: from the
 * previous range when two ranges of one capture are joined, else from
 * nothing, as a replay starts) and the state each task ends the range in.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/task-state.h"
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

/* Report keys, in the order rows are printed. */
enum ts_key { TS_R, TS_S, TS_D, TS_T, TS_TT, TS_I, TS_RD, TS__NR };
static const char *const ts_names[TS__NR] = { "R", "S", "D", "T", "t", "I", "RD" };

#define ST_RUNNING 0x00
#define ST_S 0x01
#define ST_D 0x02
#define ST_T 0x04
#define ST_TT 0x08
#define ST_I 0x80		/* TASK_REPORT_IDLE, kernels >= 4.14 */

enum ts_kind { TS_SWITCH, TS_WAKEUP, TS_WAKEUP_NEW };

struct ts_sel {
	enum ts_kind kind;
	const struct pp_field *prev_pid, *prev_state, *next_pid, *prev_comm, *next_comm;
	const struct pp_field *pid, *comm;
};

/* A copy of the event that began a stay, for --than. */
struct ts_saved {
	bool valid;
	struct pp_event ev;
	struct pp_buf raw;
	uint64_t *stack;
	uint32_t cap_stack;
};

struct ts_task {
	bool known;			/* a state and time are set */
	bool oncpu;			/* switched in, not yet out */
	uint64_t state;			/* prev_state bits, ST_RUNNING for R */
	uint64_t time_ns;		/* when the state began */
	struct pp_flame_node *leaf;	/* where it went off the CPU (--flame-graph) */
	struct ts_saved *saved;
};

struct ts_stat {
	uint32_t tid;
	enum ts_key key;
	struct pp_hist h;
};

/* --- State edges (see the top): what a range leaves open at its ends. --- */

enum ts_hkind { TSH_OUT, TSH_IN, TSH_WAKEUP, TSH_WAKEUP_NEW, TSH_DROP, TSH__NR };

struct ts_hev {
	uint8_t kind;			/* enum ts_hkind */
	uint64_t time_ns;
	uint64_t prev_state;		/* TSH_OUT: prev_state as the event gave it */
};

/* A task's first events in a range, while their stays depend on its state before. */
struct ts_head {
	bool closed;			/* an event made the task's state the range's own */
	struct ts_hev *ev;
	size_t nr, cap;
};

/* A task's state at the end of a range (a task not known then has none). */
struct ts_tail {
	bool oncpu;
	uint64_t state, time_ns;
};

struct ts_edge {
	bool lost;			/* a loss in the range forgot every state before it */
	struct pp_u64map heads;		/* tid -> struct ts_head */
	struct pp_u64map tails;		/* tid -> struct ts_tail (a replay's are its tasks) */
};

struct ts_priv {
	bool rec;			/* --state-out: heads are noted, their stays wait */
	bool mute;			/* the event is a head's: no stay recorded now */
	struct pp_u64map edges;		/* source id -> struct ts_edge */
	struct pp_u64map tasks;		/* tid -> struct ts_task */
	struct pp_u64map stat_map;	/* (tid << 8 | key) -> struct ts_stat */
	struct ts_stat **stats;
	size_t nr_stats, cap_stats;
	struct ts_sel *sels;
	uint64_t report_max;		/* prev_state of a preempted task */
	uint64_t dead;			/* prev_state bits of an exiting task */
	uint64_t report;		/* sleep states measured */
	uint64_t sd_mask;		/* -S/-D: the switch-outs followed */
	bool sd, filtering;
	char **comms;			/* --filter comm globs */
	size_t nr_comms;
	struct pp_flame *flame;
	struct pp_stackmap stacks;	/* (task, stack) -> flame node */
	struct pp_buf line;
	uint64_t nr_stays;
};

static int ts_kernel_ge(const char *release, int major, int minor)
{
	int ma = 0, mi = 0;

	if (!release || sscanf(release, "%d.%d", &ma, &mi) != 2)
		return 1;	/* unknown: assume a current kernel */
	return ma > major || (ma == major && mi >= minor);
}

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
	const char *release = ana_host(az->s, "release");
	int rc;

	if (ts_kernel_ge(release, 4, 14)) {
		p->report_max = 0x100;
		p->dead = 0x10 | 0x20;
		p->report = ST_S | ST_D | ST_T | ST_TT | ST_I;
	} else {
		p->report_max = 1024;		/* TASK_STATE_MAX */
		p->dead = 0x10 | 0x20 | 0x40;
		p->report = ST_S | ST_D | ST_T | ST_TT;
	}
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

static struct ts_task *ts_task_get(struct ts_priv *p, uint32_t tid, bool create)
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

static void ts_task_drop(struct ts_priv *p, uint32_t tid)
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
static struct ts_stat *ts_stat_get(struct ts_priv *p, uint32_t ins, enum ts_key key)
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
	pp_hist_add(&ts_stat_get(p, az->opt.perins ? tid : 0, key)->h, delta);
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

static void ts_switch_out(struct pp_az *az, const struct pp_event *ev, uint32_t tid,
			  uint64_t prev_state)
{
	struct ts_priv *p = az->priv;
	uint64_t state = prev_state == p->report_max ? ST_RUNNING : prev_state;
	struct ts_task *t;

	if (p->sd && !(state & p->sd_mask))
		return;
	t = ts_task_get(p, tid, true);
	if (!p->sd && t->known && t->oncpu && ev->time_ns > t->time_ns)
		ts_record(az, tid, TS_R, ev->time_ns - t->time_ns);
	t->oncpu = false;
	if (state & p->dead) {
		ts_task_drop(p, tid);
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

static void ts_wakeup(struct pp_az *az, const struct pp_event *ev, uint32_t tid, bool is_new)
{
	struct ts_priv *p = az->priv;
	struct ts_task *t = ts_task_get(p, tid, !p->sd);

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
		ts_task_drop(p, tid);
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

static void ts_switch_in(struct pp_az *az, const struct pp_event *ev, uint32_t tid)
{
	struct ts_priv *p = az->priv;
	struct ts_task *t = ts_task_get(p, tid, true);

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

/* --- edges of a range (state) ------------------------------------------------------ */

static struct ts_edge *ts_edge_get(struct ts_priv *p, unsigned id)
{
	void **slot = pp_u64map_slot(&p->edges, id);

	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct ts_edge));
	return *slot;
}

static void ts_edge_free(struct ts_edge *e)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!e)
		return;
	while (pp_u64map_next(&e->heads, &it, &k, &v)) {
		if (v)
			free(((struct ts_head *)v)->ev);
		free(v);
	}
	pp_u64map_release(&e->heads);
	it = 0;
	while (pp_u64map_next(&e->tails, &it, &k, &v))
		free(v);
	pp_u64map_release(&e->tails);
	free(e);
}

static void ts_head_push(struct ts_head *h, uint8_t kind, uint64_t t, uint64_t prev_state)
{
	if (h->nr == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 4;
		h->ev = pp_xrealloc(h->ev, h->cap * sizeof(*h->ev));
	}
	h->ev[h->nr++] = (struct ts_hev){ kind, t, prev_state };
}

static void ts_tail_set(struct ts_edge *e, uint32_t tid, const struct ts_tail *t)
{
	struct ts_tail *old = pp_u64map_del(&e->tails, tid);

	free(old);
	if (t) {
		struct ts_tail *c = pp_xmalloc(sizeof(*c));
		*c = *t;
		pp_u64map_put(&e->tails, tid, c);
	}
}

/*
 * A replay with --state-out: note @tid's event of @kind if the task's head is open.
 * An event closes the head when the task's state after it no longer depends on the
 * state before the range: a switch (in, or out when -S/-D follow it), a wakeup with
 * -S/-D (the task is forgotten), an exit.  A wakeup after a wakeup only matters for
 * wakeup_new's time, so a head stays short.
 * Return: the event is the head's (its stays wait for the head's replay).
 */
static bool ts_head_note(struct pp_az *az, uint32_t tid, enum ts_hkind kind, uint64_t t,
			 uint64_t prev_state)
{
	struct ts_priv *p = az->priv;
	struct ts_edge *e;
	struct ts_head *h;
	void **slot;
	bool reset;

	if (!p->rec)
		return false;
	if (kind == TSH_OUT && p->sd &&
	    !((prev_state == p->report_max ? ST_RUNNING : prev_state) & p->sd_mask))
		return false;	/* -S/-D: a switch-out it does not follow changes nothing */
	e = ts_edge_get(p, 0);
	slot = pp_u64map_slot(&e->heads, tid);
	if (!*slot) {
		h = *slot = pp_xcalloc(1, sizeof(*h));
		h->closed = e->lost;	/* after a loss, nothing from before matters */
	}
	h = *slot;
	if (h->closed)
		return false;
	reset = kind == TSH_OUT || kind == TSH_IN || kind == TSH_DROP || p->sd;
	if (!reset && h->nr && h->ev[h->nr - 1].kind >= TSH_WAKEUP) {
		if (kind == TSH_WAKEUP)
			return true;	/* the task is runnable already: nothing changes */
		if (h->nr > 1 && h->ev[h->nr - 1].kind == TSH_WAKEUP_NEW) {
			h->ev[h->nr - 1].time_ns = t;	/* only the last wakeup_new's time counts */
			return true;
		}
	}
	ts_head_push(h, (uint8_t)kind, t, prev_state);
	h->closed = reset;
	return true;
}

/* A head event through the state machine (its stays count now). */
static void ts_head_apply(struct pp_az *az, uint32_t tid, const struct ts_hev *x)
{
	struct pp_event ev = { .time_ns = x->time_ns, .tid = tid, .pid = tid };

	switch (x->kind) {
	case TSH_OUT:
		ts_switch_out(az, &ev, tid, x->prev_state);
		break;
	case TSH_IN:
		ts_switch_in(az, &ev, tid);
		break;
	case TSH_WAKEUP:
	case TSH_WAKEUP_NEW:
		ts_wakeup(az, &ev, tid, x->kind == TSH_WAKEUP_NEW);
		break;
	default:
		ts_task_drop(az->priv, tid);
		break;
	}
}

/*
 * Replay @h for @tid from state @from (NULL: unknown, as a replay starts).
 * Return: whether the task is known after it, its state in *@out.
 */
static bool ts_head_resolve(struct pp_az *az, uint32_t tid, const struct ts_head *h,
			    const struct ts_tail *from, struct ts_tail *out)
{
	struct ts_priv *p = az->priv;
	struct ts_task *t;
	bool known;

	ts_task_drop(p, tid);
	if (from) {
		t = ts_task_get(p, tid, true);
		t->known = true;
		t->oncpu = from->oncpu;
		t->state = from->state;
		t->time_ns = from->time_ns;
	}
	for (size_t i = 0; i < h->nr; i++)
		ts_head_apply(az, tid, &h->ev[i]);
	t = ts_task_get(p, tid, false);
	known = t && t->known;
	if (known)
		*out = (struct ts_tail){ t->oncpu, t->state, t->time_ns };
	ts_task_drop(p, tid);
	return known;
}

/*
 * Sources @a_id and @b_id are ranges of one capture, @b right after @a: B's heads
 * meet A's tails.  A head whose task A knew at its end is replayed from that state;
 * one A left open (A only saw it woken) grows by B's; one A never saw stays a head.
 */
static void ts_state_join(struct pp_az *az, unsigned a_id, unsigned b_id)
{
	struct ts_priv *p = az->priv;
	struct ts_edge *a = ts_edge_get(p, a_id), *b = pp_u64map_del(&p->edges, b_id);
	uint64_t *tids;
	size_t nr;

	if (!b)
		return;
	if (b->lost) {	/* B forgot the tasks it did not see again */
		tids = pp_u64map_keys(&a->heads, &nr);
		for (size_t i = 0; i < nr; i++) {
			struct ts_head *ha = pp_u64map_get(&a->heads, tids[i]);
			if (!pp_u64map_get(&b->heads, tids[i]))
				ha->closed = true;
		}
		free(tids);
		tids = pp_u64map_keys(&a->tails, &nr);
		for (size_t i = 0; i < nr; i++)
			if (!pp_u64map_get(&b->heads, tids[i]))
				ts_tail_set(a, (uint32_t)tids[i], NULL);
		free(tids);
	}
	tids = pp_u64map_keys(&b->heads, &nr);
	for (size_t i = 0; i < nr; i++) {
		uint32_t tid = (uint32_t)tids[i];
		struct ts_head *hb = pp_u64map_get(&b->heads, tid);
		struct ts_head *ha = pp_u64map_get(&a->heads, tid);
		struct ts_tail *tb = pp_u64map_get(&b->tails, tid), res;

		if (ha && !ha->closed) {
			for (size_t k = 0; k < hb->nr; k++)
				ts_head_push(ha, hb->ev[k].kind, hb->ev[k].time_ns, hb->ev[k].prev_state);
			ha->closed = hb->closed;
			ts_tail_set(a, tid, tb);
		} else if (!ha && !a->lost) {
			*pp_u64map_slot(&b->heads, tid) = NULL;	/* moved */
			pp_u64map_put(&a->heads, tid, hb);
			ts_tail_set(a, tid, tb);
		} else {
			bool known = ts_head_resolve(az, tid, hb, pp_u64map_get(&a->tails, tid), &res);
			ts_tail_set(a, tid, hb->closed ? tb : known ? &res : NULL);
		}
	}
	free(tids);
	a->lost |= b->lost;
	ts_edge_free(b);
}

/* Before a report of states: every head from nothing, as a replay of its range starts. */
static void ts_resolve_heads(struct pp_az *az)
{
	struct ts_priv *p = az->priv;
	uint64_t *ids, *tids;
	size_t nr_ids, nr;
	struct ts_tail res;

	if (p->rec)
		return;
	ids = pp_u64map_keys(&p->edges, &nr_ids);
	for (size_t i = 0; i < nr_ids; i++) {
		struct ts_edge *e = pp_u64map_del(&p->edges, ids[i]);
		tids = pp_u64map_keys(&e->heads, &nr);
		for (size_t k = 0; k < nr; k++)
			ts_head_resolve(az, (uint32_t)tids[k], pp_u64map_get(&e->heads, tids[k]),
					NULL, &res);
		free(tids);
		ts_edge_free(e);
	}
	free(ids);
}

static void ts_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ts_priv *p = az->priv;
	const struct ts_sel *k = ev->sel->priv;

	if (k->kind == TS_SWITCH) {
		int64_t prev = (int64_t)ana_field_read(ev, k->prev_pid);
		int64_t next = (int64_t)ana_field_read(ev, k->next_pid);
		if (prev > 0 && ts_selected(az, ev, (uint32_t)prev, k->prev_comm)) {
			uint64_t st = ana_field_read(ev, k->prev_state);
			p->mute = ts_head_note(az, (uint32_t)prev, TSH_OUT, ev->time_ns, st);
			ts_switch_out(az, ev, (uint32_t)prev, st);
		}
		if (!p->sd && next > 0 && ts_selected(az, ev, (uint32_t)next, k->next_comm)) {
			p->mute = ts_head_note(az, (uint32_t)next, TSH_IN, ev->time_ns, 0);
			ts_switch_in(az, ev, (uint32_t)next);
		}
	} else {
		int64_t pid = (int64_t)ana_field_read(ev, k->pid);
		if (pid > 0 && ts_selected(az, ev, (uint32_t)pid, k->comm)) {
			p->mute = ts_head_note(az, (uint32_t)pid, k->kind == TS_WAKEUP_NEW ?
					       TSH_WAKEUP_NEW : TSH_WAKEUP, ev->time_ns, 0);
			ts_wakeup(az, ev, (uint32_t)pid, k->kind == TS_WAKEUP_NEW);
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
		struct ts_edge *e = ts_edge_get(p, 0);
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
		p->mute = ts_head_note(az, tid, TSH_DROP, time_ns, 0);
		p->mute = false;
	}
	ts_task_drop(p, tid);
}

/* --- report -------------------------------------------------------------------- */

static int ts_cmp_stat(const void *a, const void *b)
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
	qsort(p->stats, p->nr_stats, sizeof(*p->stats), ts_cmp_stat);
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

	ts_resolve_heads(az);	/* a report of states: their heads, from nothing */
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
		ts_edge_free(v);
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

/* --- mergeable state (docs/state-format.md "task-state") ------------------------ */

static void ts_put_edge(struct pp_az *az, struct ts_edge *e, struct pp_buf *out)
{
	struct ts_priv *p = az->priv;
	uint64_t *tids;
	size_t nr, n = 0;

	pp_wire_put_u8(out, e->lost);
	tids = pp_u64map_keys(&e->heads, &nr);
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct ts_head *h = pp_u64map_get(&e->heads, tids[i]);
		pp_wire_put_varint(out, tids[i]);
		pp_wire_put_u8(out, h->closed);
		pp_wire_put_varint(out, h->nr);
		for (size_t k = 0; k < h->nr; k++) {
			pp_wire_put_u8(out, h->ev[k].kind);
			pp_wire_put_varint(out, h->ev[k].time_ns);
			pp_wire_put_varint(out, h->ev[k].prev_state);
		}
	}
	free(tids);
	if (!p->rec) {
		tids = pp_u64map_keys(&e->tails, &nr);
		pp_wire_put_varint(out, nr);
		for (size_t i = 0; i < nr; i++) {
			const struct ts_tail *t = pp_u64map_get(&e->tails, tids[i]);
			pp_wire_put_varint(out, tids[i]);
			pp_wire_put_u8(out, t->oncpu);
			pp_wire_put_varint(out, t->state);
			pp_wire_put_varint(out, t->time_ns);
		}
		free(tids);
		return;
	}
	/* the replay's tails: its known tasks, but those whose head is still open */
	tids = pp_u64map_keys(&p->tasks, &nr);
	for (size_t i = 0; i < nr; i++) {
		const struct ts_head *h = pp_u64map_get(&e->heads, tids[i]);
		const struct ts_task *t = pp_u64map_get(&p->tasks, tids[i]);
		if (t->known && !(h && !h->closed))
			tids[n++] = tids[i];
	}
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct ts_task *t = pp_u64map_get(&p->tasks, tids[i]);
		pp_wire_put_varint(out, tids[i]);
		pp_wire_put_u8(out, t->oncpu);
		pp_wire_put_varint(out, t->state);
		pp_wire_put_varint(out, t->time_ns);
	}
	free(tids);
}

static int ts_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct ts_priv *p = az->priv;
	const unsigned *ids;
	size_t nr = ana_state_sources(az, &ids);

	if (p->nr_stats)
		qsort(p->stats, p->nr_stats, sizeof(*p->stats), ts_cmp_stat);
	pp_wire_put_varint(out, p->nr_stats);
	for (size_t i = 0; i < p->nr_stats; i++) {
		pp_wire_put_varint(out, p->stats[i]->tid);
		pp_wire_put_u8(out, (uint8_t)p->stats[i]->key);
		pp_wire_put_hist(out, &p->stats[i]->h);
	}
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++)
		ts_put_edge(az, ts_edge_get(p, ids[i]), out);
	return 0;
}

static int ts_read_edge(struct pp_wire *in, struct ts_edge *e)
{
	uint8_t lost = pp_wire_u8(in);
	size_t nr = pp_wire_count(in, 3, SIZE_MAX, "heads");

	if (pp_wire_ok(in) && lost > 1)
		return pp_wire_fail(in, PP_EBAD_RECORD, "loss flag %u", lost);
	e->lost = lost;
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t tid = pp_wire_u32(in, "tid");
		uint8_t closed = pp_wire_u8(in);
		size_t n = pp_wire_count(in, 3, SIZE_MAX, "head events");
		void **slot;
		struct ts_head *h;

		if (!pp_wire_ok(in))
			break;
		slot = pp_u64map_slot(&e->heads, tid);
		if (*slot || closed > 1 || (!closed && !n))
			return pp_wire_fail(in, PP_EBAD_RECORD, "head of %u: twice, or bad", tid);
		h = *slot = pp_xcalloc(1, sizeof(*h));
		h->closed = closed;
		for (size_t k = 0; k < n && pp_wire_ok(in); k++) {
			uint8_t kind = pp_wire_u8(in);
			uint64_t t = pp_wire_varint(in), st = pp_wire_varint(in);
			if (pp_wire_ok(in) && kind >= TSH__NR)
				return pp_wire_fail(in, PP_EBAD_RECORD, "head event kind %u", kind);
			ts_head_push(h, kind, t, st);
		}
	}
	nr = pp_wire_count(in, 4, SIZE_MAX, "tails");
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t tid = pp_wire_u32(in, "tid");
		struct ts_tail t = { .oncpu = pp_wire_u8(in) };
		t.state = pp_wire_varint(in);
		t.time_ns = pp_wire_varint(in);
		if (pp_wire_ok(in) && pp_u64map_get(&e->tails, tid))
			return pp_wire_fail(in, PP_EBAD_RECORD, "tail of %u twice", tid);
		ts_tail_set(e, tid, &t);
	}
	return in->err;
}

static int ts_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct ts_priv *p = az->priv;
	size_t nr = pp_wire_count(in, 3, SIZE_MAX, "histograms");

	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t tid = pp_wire_u32(in, "thread");
		uint8_t key = pp_wire_u8(in);
		struct pp_hist h;
		int rc;

		if (pp_wire_ok(in) && (key >= TS__NR || (!az->opt.perins && tid)))
			return pp_wire_fail(in, PP_EBAD_RECORD, "histogram %zu: state %u, thread %u",
					    i, key, tid);
		pp_hist_init(&h);
		rc = pp_wire_hist(in, &h);
		if (!rc && !pp_hist_count(&h))
			rc = pp_wire_fail(in, PP_EBAD_RECORD, "histogram %zu is empty", i);
		if (!rc) {	/* the range's stays, at once */
			pp_hist_merge(&ts_stat_get(p, tid, key)->h, &h);
			p->nr_stays += pp_hist_count(&h);
		}
		pp_hist_release(&h);
		if (rc)
			return rc;
	}
	nr = pp_wire_count(in, 3, SIZE_MAX, "sources");
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		unsigned id;
		void **slot;

		if (!ana_state_source_in(az, in, i, &id))
			break;
		slot = pp_u64map_slot(&p->edges, id);
		if (*slot)
			return pp_wire_fail(in, PP_EBAD_RECORD, "source %zu twice", i);
		*slot = pp_xcalloc(1, sizeof(struct ts_edge));
		if (ts_read_edge(in, *slot))
			break;
	}
	return in->err;
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
	.state_write = ts_state_write,
	.state_read = ts_state_read,
	.state_join = ts_state_join,
};
