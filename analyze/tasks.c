/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - the capture's task table: pid, parent and comm of every tid.
 *
 * Filled from the task snapshot and the COMM, FORK and EXIT records as they
 * come in time order, and from the samples themselves: a sample pairs a tid
 * with its pid, a tid of -1 is recovered (common_pid, the CPU's last
 * sched_switch), a task whose records were lost learns its name from the
 * events that carry one (prev_comm/prev_pid).  Tasks are never freed: the
 * task cache keeps pointers into the table.
 * Not here: the other side-band state (session.c, symbols.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/expr.h"
#include "common/units.h"
#include "common/symbolize.h"

/*
 * The task of @tid, made when new.  Past the side-band budget a new task is
 * not kept: the answer is a blank scratch task (tid 0: no cache matches it),
 * whatever the caller writes into it is forgotten.
 */
static struct ana_task *task_get(struct ana_session *s, uint32_t tid)
{
	struct ana_task *t = pp_u64map_get(&s->tasks, tid);

	if (t)
		return t;
	if (!ana_sb_room(s)) {
		memset(&s->sb_spill, 0, sizeof(s->sb_spill));
		return &s->sb_spill;
	}
	void **slot = pp_u64map_slot(&s->tasks, tid);

	s->sb_bytes += sizeof(struct ana_task) + 2 * sizeof(struct pp_u64map_slot);
	if (!*slot) {
		t = pp_xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->pid = tid;
		*slot = t;
	}
	return *slot;
}

/* ana_comm_id()'s ids of the two fixed names; a task's comm_id counts on from COMM_ID_FIRST */
enum { COMM_ID_UNNAMED, COMM_ID_IDLE, COMM_ID_FIRST };

/* @t's comm has just been written: it gets a number no other text had */
static void task_named(struct ana_session *s, struct ana_task *t)
{
	if (s->comm_serial < COMM_ID_FIRST)
		s->comm_serial = COMM_ID_FIRST;
	t->comm_id = s->comm_serial++;
}

const char *ana_comm_id(struct ana_session *s, uint32_t tid, uint64_t *id)
{
	struct ana_task *t;

	if (tid == 0) {
		*id = COMM_ID_IDLE;
		return "<idle>";	/* as perf-prof (libtraceevent) names pid 0 */
	}
	t = s->task_cache[tid & (PP_ARRAY_SIZE(s->task_cache) - 1)];	/* the last tasks seen */
	if (!t || t->tid != tid)
		t = pp_u64map_get(&s->tasks, tid);
	if (t && t->comm[0]) {
		*id = t->comm_id;
		return t->comm;
	}
	*id = COMM_ID_UNNAMED;
	return "<...>";
}

const char *ana_comm(struct ana_session *s, uint32_t tid)
{
	uint64_t id;

	return ana_comm_id(s, tid, &id);
}

uint32_t ana_task_pid(struct ana_session *s, uint32_t tid)
{
	struct ana_task *t = pp_u64map_get(&s->tasks, tid);

	return t ? t->pid : tid;
}

static void task_info(const struct ana_task *t, struct ana_task_info *out)
{
	out->pid = t->pid;
	out->tid = t->tid;
	out->ppid = t->ppid;
	out->comm = t->comm;
	out->exit_ns = t->exit_ns;
}

bool ana_task_get(struct ana_session *s, uint32_t tid, struct ana_task_info *out)
{
	struct ana_task *t = pp_u64map_get(&s->tasks, tid);

	if (!t)
		return false;
	task_info(t, out);
	return true;
}

bool ana_task_next(struct ana_session *s, size_t *iter, struct ana_task_info *out)
{
	uint64_t k;
	void *v;

	if (!pp_u64map_next(&s->tasks, iter, &k, &v))
		return false;
	task_info(v, out);
	return true;
}

bool ana_task_forked_by(struct ana_session *s, uint32_t tid, const int *pids, size_t nr_pids,
			const int *tids, size_t nr_tids)
{
	/* 64 forks deep at most: reused tids in a hostile capture can make a loop */
	for (int depth = 0; depth < 64; depth++) {
		const struct ana_task *t = pp_u64map_get(&s->tasks, tid);
		const struct ana_task *parent;

		if (!t || !t->ptid || t->ptid == tid)
			return false;
		parent = pp_u64map_get(&s->tasks, t->ptid);
		if (!parent)
			return false;
		if ((nr_pids && pp_list_has(pids, nr_pids, parent->pid)) ||
		    (nr_tids && pp_list_has(tids, nr_tids, parent->tid)))
			return true;
		tid = t->ptid;
	}
	return false;
}

void ana_tasks_meta(struct ana_session *s, const struct ppf_record *rec)
{
	struct ana_task *t;

	switch (rec->type) {
	case PPF_REC_TASK:
		t = task_get(s, rec->u.task.tid);
		t->pid = rec->u.task.pid;
		t->ppid = rec->u.task.ppid;
		snprintf(t->comm, sizeof(t->comm), "%s", rec->u.task.comm);
		task_named(s, t);
		break;
	case PPF_REC_COMM:
		t = task_get(s, rec->u.comm.tid);
		t->pid = rec->u.comm.pid;
		t->exit_ns = 0;
		snprintf(t->comm, sizeof(t->comm), "%s", rec->u.comm.comm);
		task_named(s, t);
		if (rec->u.comm.exec && rec->u.comm.pid == rec->u.comm.tid)
			pp_symtab_task_exec(s->syms, rec->u.comm.pid, rec->time_ns);
		break;
	case PPF_REC_FORK: {
		struct ana_task *parent = pp_u64map_get(&s->tasks, rec->u.task_event.ptid);
		t = task_get(s, rec->u.task_event.tid);
		t->pid = rec->u.task_event.pid;
		t->ptid = rec->u.task_event.ptid;
		t->exit_ns = 0;
		if (rec->u.task_event.pid != rec->u.task_event.ppid) {
			t->ppid = rec->u.task_event.ppid;	/* a new process */
		} else {
			struct ana_task *leader = pp_u64map_get(&s->tasks, rec->u.task_event.pid);
			t->ppid = leader ? leader->ppid : 0;	/* a new thread */
		}
		if (parent) {
			memcpy(t->comm, parent->comm, sizeof(t->comm));
			t->comm_id = parent->comm_id;	/* the same text */
		}
		if (rec->u.task_event.pid != rec->u.task_event.ppid &&
		    rec->u.task_event.pid == rec->u.task_event.tid && ana_sb_room(s))
			pp_symtab_task_fork(s->syms, rec->u.task_event.ppid, rec->u.task_event.pid,
					    rec->time_ns);
		break;
	}
	case PPF_REC_EXIT:
		t = pp_u64map_get(&s->tasks, rec->u.task_event.tid);
		if (t)
			t->exit_ns = rec->time_ns;
		if (rec->u.task_event.pid == rec->u.task_event.tid)
			pp_symtab_task_exit(s->syms, rec->u.task_event.pid, rec->time_ns);
		break;
	default:
		break;
	}
}

/* A sample names its pid/tid; remember the pairing for tasks the snapshot missed. */
struct ana_task *ana_session_note_task(struct ana_session *s, uint32_t pid, uint32_t tid)
{
	struct ana_task **slot = &s->task_cache[tid & (PP_ARRAY_SIZE(s->task_cache) - 1)];
	struct ana_task *t = *slot;

	if (!tid)
		return NULL;
	if (!t || t->tid != tid)
		t = *slot = task_get(s, tid);
	t->pid = pid;
	return t;
}

/*
 * The kernel reports pid/tid -1 for a task it has already unhashed: the
 * last sched_switch of an exiting task (prev_state X), a timer sample in its
 * exit path.  A tracepoint still names it in common_pid; else, when the
 * capture has sched_switch, the task is the one last switched in on that
 * CPU.  Its process comes from the task table.
 */
static void recover_tid(struct ana_session *s, struct pp_event *ev)
{
	uint64_t pid = 0;

	if (!ev->raw_sz || !ana_field_u64(ev, "common_pid", &pid))
		pid = ev->cpu < s->nr_cpu_cur && s->cpu_cur[ev->cpu] ? s->cpu_cur[ev->cpu] - 1 : 0;
	if (!pid || pid >= UINT32_MAX)
		return;
	ev->tid = (uint32_t)pid;
	ev->pid = ana_task_pid(s, ev->tid);
}

/* Who runs on each CPU, from sched_switch (for recover_tid()). */
static void note_switch(struct ana_session *s, const struct pp_field *next, const struct pp_event *ev)
{
	if (ev->cpu >= 4096)
		return;
	if (ev->cpu >= s->nr_cpu_cur) {
		size_t n = (ev->cpu | 15) + 1;
		s->cpu_cur = pp_xrealloc(s->cpu_cur, n * sizeof(*s->cpu_cur));
		memset(s->cpu_cur + s->nr_cpu_cur, 0, (n - s->nr_cpu_cur) * sizeof(*s->cpu_cur));
		s->nr_cpu_cur = n;
	}
	uint32_t v;
	if (next->size == 4 && !next->is_data_loc && ev->raw &&
	    (uint64_t)next->offset + 4 <= ev->raw_sz)
		memcpy(&v, ev->raw + next->offset, 4);	/* ana_field_read()'s value, inline */
	else
		v = (uint32_t)ana_field_read(ev, next);
	s->cpu_cur[ev->cpu] = v + 1;
}

/*
 * A task whose COMM and FORK records were lost has no name; an event that
 * names it in its own fields (sched_switch's prev_comm/prev_pid) gives it one.
 * For every event only after a LOST record: without losses the task records
 * name almost every task, and this costs a lookup per field pair per event
 * (~40% of `top`); else only for the events of a task still unnamed.
 */
static void learn_names(struct ana_session *s, const struct ana_evtype_priv *x,
			const struct pp_event *ev)
{
	for (unsigned i = 0; i < x->nr_names; i++) {
		uint64_t pid = ana_field_read(ev, x->name_pid[i]);
		const struct pp_field *c = x->name_comm[i];
		struct ana_task *t;

		if (!pid || pid >= UINT32_MAX)
			continue;
		t = pp_u64map_get(&s->tasks, pid);
		if (t && t->comm[0])
			continue;
		if (c->is_data_loc || (uint64_t)c->offset + c->size > ev->raw_sz)
			continue;
		t = task_get(s, (uint32_t)pid);
		size_t n = c->size < sizeof(t->comm) ? c->size : sizeof(t->comm) - 1;
		memcpy(t->comm, ev->raw + c->offset, n);
		t->comm[n] = '\0';
		task_named(s, t);
	}
}

void ana_session_sample(struct ana_session *s, struct ana_evtype *t, const struct ppf_sample *smp,
			struct pp_event *ev)
{
	/*
	 * Field by field, not `*ev = (struct pp_event){...}`: the compound literal
	 * zeroes the whole struct first (a `rep stos` of its 112 bytes) before the
	 * stores overwrite it.  With ana_comm()'s task cache: 4% fewer instructions
	 * in a `top` replay of 1M sched events (callgrind, tests/bench stage core).
	 */
	ev->time_ns = smp->time_ns;
	ev->cpu = smp->cpu;
	ev->pid = smp->pid;
	ev->tid = smp->tid;
	ev->period = smp->period;
	ev->ip = smp->ip;
	ev->addr = smp->addr;
	ev->flags = smp->flags;
	ev->type = t;
	ev->sel = NULL;
	ev->raw = smp->raw;
	ev->raw_sz = smp->raw_sz;
	ev->stack = smp->stack;
	ev->count = NULL;
	ev->nr_stack = smp->nr_stack;
	ev->extra = smp->extra;
	ev->extra_sz = smp->extra_sz;
	t->count++;
	if (!s->first_ns)
		s->first_ns = smp->time_ns;
	s->last_ns = smp->time_ns;
	if (s->lost_total && ana_evtype_priv(t)->nr_names)	/* only losses leave tasks unnamed */
		learn_names(s, ana_evtype_priv(t), ev);
	if (ev->tid == UINT32_MAX)
		recover_tid(s, ev);
	if (ana_evtype_priv(t)->switch_next)
		note_switch(s, ana_evtype_priv(t)->switch_next, ev);
	if (ev->tid != s->last_tid) {
		struct ana_task *k = ana_session_note_task(s, ev->pid, ev->tid);
		/*
		 * A task with no name without any loss: one forked between the
		 * recorder's first reading of /proc and the enable, gone before its
		 * second (no FORK, no COMM, no snapshot).  Its events may name it
		 * (sched_switch's prev_comm): learn from each of them until one does.
		 */
		if (k && !k->comm[0] && ana_evtype_priv(t)->nr_names && !s->lost_total)
			learn_names(s, ana_evtype_priv(t), ev);
		s->last_tid = k && !k->comm[0] ? 0 : ev->tid;
	}
}
