/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - the capture's task table: pid, parent and comm of every tid.
 *
 * Filled from the task snapshot and the COMM, FORK and EXIT records as they
 * come in time order; a comm written gets a number no other text had
 * (ana_comm_id()).  Tasks are never freed: the session's task cache keeps
 * pointers into the table.
 * Not here: what samples teach the table (session.c: ana_session_sample(),
 * on the hot path), the other side-band state (session.c, symbols.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/units.h"
#include "common/symbolize.h"

struct ana_task *ana_task_entry(struct ana_session *s, uint32_t tid)
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

void ana_task_named(struct ana_session *s, struct ana_task *t)
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
		t = ana_task_entry(s, rec->u.task.tid);
		t->pid = rec->u.task.pid;
		t->ppid = rec->u.task.ppid;
		snprintf(t->comm, sizeof(t->comm), "%s", rec->u.task.comm);
		ana_task_named(s, t);
		break;
	case PPF_REC_COMM:
		t = ana_task_entry(s, rec->u.comm.tid);
		t->pid = rec->u.comm.pid;
		t->exit_ns = 0;
		snprintf(t->comm, sizeof(t->comm), "%s", rec->u.comm.comm);
		ana_task_named(s, t);
		if (rec->u.comm.exec && rec->u.comm.pid == rec->u.comm.tid)
			pp_symtab_task_exec(s->syms, rec->u.comm.pid, rec->time_ns);
		break;
	case PPF_REC_FORK: {
		struct ana_task *parent = pp_u64map_get(&s->tasks, rec->u.task_event.ptid);
		t = ana_task_entry(s, rec->u.task_event.tid);
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
