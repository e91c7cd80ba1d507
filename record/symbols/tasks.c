/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - the task table of pp-record's production modes.
 *
 * One open-addressing hash keyed by tid, with linear probing and
 * backward-shift deletion (no tombstones), so a machine that creates and
 * reaps threads for days keeps a table sized by its live tasks.  An entry is
 * 40 bytes; 32k tasks cost about 2.5 MB.
 * Not here: maps and symbols (symbols.c).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "format/format.h"
#include "record/symbols/tasks.h"

struct task {
	uint32_t tid;			/* 0 = empty slot (tid 0 is the idle task: not stored) */
	uint32_t pid, ppid;
	uint64_t exit_ns;		/* 0 while alive */
	char comm[16];
};

struct rec_tasks {
	struct task *v;
	size_t cap;			/* a power of 2 */
	size_t nr;
};

struct rec_tasks *rec_tasks_new(void)
{
	struct rec_tasks *t = pp_xcalloc(1, sizeof(*t));

	t->cap = 1024;
	t->v = pp_xcalloc(t->cap, sizeof(*t->v));
	return t;
}

void rec_tasks_free(struct rec_tasks *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}

static inline size_t slot_of(const struct rec_tasks *t, uint32_t tid)
{
	return (size_t)((tid * 0x9e3779b1u) & (uint32_t)(t->cap - 1));
}

/* The first empty slot of @tid's probe run: where it goes in. */
static size_t free_slot(const struct rec_tasks *t, uint32_t tid)
{
	size_t i;

	for (i = slot_of(t, tid); t->v[i].tid; i = (i + 1) & (t->cap - 1))
		;
	return i;
}

static struct task *find(struct rec_tasks *t, uint32_t tid)
{
	for (size_t i = slot_of(t, tid); t->v[i].tid; i = (i + 1) & (t->cap - 1))
		if (t->v[i].tid == tid)
			return &t->v[i];
	return NULL;
}

static void grow(struct rec_tasks *t)
{
	struct task *old = t->v;
	size_t ocap = t->cap;

	t->cap *= 2;
	t->v = pp_xcalloc(t->cap, sizeof(*t->v));
	for (size_t k = 0; k < ocap; k++)
		if (old[k].tid)
			t->v[free_slot(t, old[k].tid)] = old[k];
	free(old);
}

static struct task *get(struct rec_tasks *t, uint32_t tid)
{
	struct task *e = find(t, tid);

	if (e)
		return e;
	if (2 * (t->nr + 1) > t->cap)
		grow(t);
	t->nr++;
	e = &t->v[free_slot(t, tid)];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	return e;
}

/* Remove slot @i and shift back the entries of its probe run. */
static void del(struct rec_tasks *t, size_t i)
{
	size_t j = i;

	t->v[i].tid = 0;
	t->nr--;
	for (;;) {
		j = (j + 1) & (t->cap - 1);
		if (!t->v[j].tid)
			return;
		size_t home = slot_of(t, t->v[j].tid);
		/* move j into the hole at i when its home is not in (i, j] cyclically */
		if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
			t->v[i] = t->v[j];
			t->v[j].tid = 0;
			i = j;
		}
	}
}

static void set_comm(struct task *e, const char *comm)
{
	snprintf(e->comm, sizeof(e->comm), "%s", comm ? comm : "");
}

void rec_tasks_set(struct rec_tasks *t, uint32_t pid, uint32_t tid, uint32_t ppid,
		   const char *comm)
{
	struct task *e;

	if (!tid)
		return;
	e = get(t, tid);
	e->pid = pid;
	e->ppid = ppid;
	e->exit_ns = 0;
	set_comm(e, comm);
}

void rec_tasks_comm(struct rec_tasks *t, uint32_t pid, uint32_t tid, const char *comm)
{
	struct task *e;

	if (!tid)
		return;
	e = get(t, tid);
	e->pid = pid;
	set_comm(e, comm);
}

void rec_tasks_fork(struct rec_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		    uint32_t ptid)
{
	const struct task *parent;
	char comm[16] = "";
	struct task *e;
	uint32_t grand = 0;

	if (!tid)
		return;
	parent = find(t, ptid);
	if (parent) {
		memcpy(comm, parent->comm, sizeof(comm));
		grand = parent->ppid;
	}
	e = get(t, tid);
	e->pid = pid;
	/* a new thread shares its process's parent; a new process's parent is @ppid */
	e->ppid = pid == ppid ? grand : ppid;
	e->exit_ns = 0;
	memcpy(e->comm, comm, sizeof(comm));
}

void rec_tasks_exit(struct rec_tasks *t, uint32_t tid, uint64_t time_ns)
{
	struct task *e = tid ? find(t, tid) : NULL;

	if (e)
		e->exit_ns = time_ns ? time_ns : 1;
}

void rec_tasks_prune(struct rec_tasks *t, uint64_t before_ns)
{
	size_t i = 0, left = t->cap;

	/* deleting shifts later entries back into i: look at i again */
	while (left--) {
		if (t->v[i].tid && t->v[i].exit_ns && t->v[i].exit_ns < before_ns) {
			del(t, i);
			left++;
			continue;
		}
		i = (i + 1) & (t->cap - 1);
	}
}

size_t rec_tasks_count(const struct rec_tasks *t)
{
	return t->nr;
}

static void read_cmdline(uint32_t pid, char *buf, size_t sz, const char *comm)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sz - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(buf, sz, "%s", comm);
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

int rec_tasks_write(const struct rec_tasks *t, struct ppf_writer *w)
{
	char cmdline[4096];
	uint32_t last_pid = 0;
	int rc = 0;

	for (size_t i = 0; i < t->cap && !rc; i++) {
		const struct task *e = &t->v[i];

		if (!e->tid)
			continue;
		if (e->pid != last_pid) {
			if (e->exit_ns)
				snprintf(cmdline, sizeof(cmdline), "%s", e->comm);
			else
				read_cmdline(e->pid, cmdline, sizeof(cmdline), e->comm);
			last_pid = e->pid;
		}
		rc = ppf_write_task(w, &(struct ppf_task){ e->pid, e->tid, e->ppid, e->comm,
							   cmdline });
	}
	return rc;
}
