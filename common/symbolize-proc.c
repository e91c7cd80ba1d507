/* SPDX-License-Identifier: MIT */
/*
 * symbolize-proc.c - per-process memory maps with history, and user-space lookups.
 *
 * Each process keeps its live mappings sorted and non-overlapping (binary search, plus a
 * hint at the last hit) and a history of replaced pieces with the time range they were valid.
 *
 * Worked example: libfoo is mapped at [0x1000, 0x5000) at t=0, then at t=10 something is
 * mapped over [0x2000, 0x3000).  The live list becomes
 *   [0x1000,0x2000) libfoo t0..   [0x2000,0x3000) new t10..   [0x3000,0x5000) libfoo t0..
 * and the history gains [0x2000,0x3000) libfoo valid t0..t10, so lookup(t=5, 0x2800) is
 * still libfoo while lookup(t=11, 0x2800) is the new mapping.
 *
 * An exec ends every mapping, but the task runs in the kernel for a while before the new
 * image's first instruction: its registers (a sample's user pc) still point into the old
 * image while the new binary is being mapped and its stack filled.  So from the exec until
 * the first mapping after the new image's vDSO (the vDSO is the last mapping execve makes:
 * the next one is the new image's own doing, its dynamic loader's first library), an
 * address in no live mapping is looked up in the image the exec replaced.  A fork over the
 * pid or the next exec end the window too.  Each process keeps its windows in time order,
 * so lookups at any time agree.  (perf, which keeps maps across an exec, names such a frame
 * the same way.)
 * Not here: the symbol tables themselves (symbolize.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/symbolize-internal.h"

struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t t_start, t_end;	/* valid for t_start <= t < t_end */
	const char *path;
	const char *bid;		/* hex or NULL */
	struct pp_dso *dso;		/* bound lazily */
	uint64_t dso_gen;		/* st->dso_gen at the last failed binding */
};

/* During [start, end), an address in no live mapping is looked up at start - 1. */
struct exec_win {
	uint64_t start, end;
	bool vdso;			/* the new image's vDSO is mapped: the next mapping ends it */
};

#define MAX_EXECS 4096			/* windows kept for one process: the oldest go first */

struct sym_proc {
	uint32_t pid;
	struct sym_map *live;		/* sorted by start, no overlaps, t_end = UINT64_MAX */
	size_t nr_live, alloc_live;
	struct sym_map *old;		/* replaced pieces; sorted by start when old_sorted */
	size_t nr_old, alloc_old;
	bool old_sorted;
	uint64_t old_max_len;		/* longest old piece: bounds the backward scan */
	struct sym_map *big;		/* replaced pieces >= OLD_BIG_LEN, scanned linearly */
	size_t nr_big, alloc_big;
	struct pp_dso *jit;
	size_t hint;			/* index of the last live hit */
	struct exec_win *execs;		/* its execs, in time order */
	size_t nr_execs, alloc_execs;
};
static void proc_free(struct sym_proc *p)
{
	free(p->live);
	free(p->old);
	free(p->big);
	free(p->execs);
	free(p);
}

void pp_symtab__procs_free(struct pp_symtab *st)
{
	for (size_t i = 0; i < st->procs.cap; i++)
		if (st->procs.slots[i])
			proc_free(st->procs.slots[i]);
	free(st->procs.slots);
}

/* Bind a mapping to its DSO once; retry only after new DSOs appeared. */
static struct pp_dso *map_dso(struct pp_symtab *st, struct sym_map *m)
{
	if (m->dso || m->dso_gen == st->dso_gen)
		return m->dso;
	m->dso_gen = st->dso_gen;
	m->dso = pp_symtab__dso_for(st, m->bid, m->path);
	return m->dso;
}

/* bytes of @p's map arrays: what a change to them charges to pp_symtab_mem() */
static size_t proc_bytes(const struct sym_proc *p)
{
	return p ? (p->alloc_live + p->alloc_old + p->alloc_big) * sizeof(struct sym_map) +
		   p->alloc_execs * sizeof(struct exec_win) : 0;
}

static size_t pid_slot(const struct pidmap *m, uint32_t pid)
{
	size_t i = (pid * 0x9e3779b1u) & (m->cap - 1);

	while (m->slots[i] && m->slots[i]->pid != pid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static struct sym_proc *proc_find(struct pp_symtab *st, uint32_t pid)
{
	struct sym_proc *p;

	if (st->last_proc && st->last_proc->pid == pid)
		return st->last_proc;
	if (!st->procs.nr)
		return NULL;
	p = st->procs.slots[pid_slot(&st->procs, pid)];
	if (p)
		st->last_proc = p;
	return p;
}

static struct sym_proc *proc_get(struct pp_symtab *st, uint32_t pid)
{
	struct pidmap *m = &st->procs;
	struct sym_proc *p = proc_find(st, pid);

	if (p)
		return p;
	if ((m->nr + 1) * 2 > m->cap) {
		struct pidmap old = *m;

		m->cap = old.cap ? old.cap * 2 : 256;
		m->slots = pp_xcalloc(m->cap, sizeof(*m->slots));
		st->mem += (m->cap - old.cap) * sizeof(*m->slots);
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i])
				m->slots[pid_slot(m, old.slots[i]->pid)] = old.slots[i];
		free(old.slots);
	}
	p = pp_xcalloc(1, sizeof(*p));
	st->mem += sizeof(*p);
	p->pid = pid;
	p->old_sorted = true;
	m->slots[pid_slot(m, pid)] = p;
	m->nr++;
	st->last_proc = p;
	return p;
}

/*
 * Huge replaced pieces (a heap reservation, a sanitizer shadow) live apart: in the sorted
 * history they would stretch every backward scan over the whole list.
 */
#define OLD_BIG_LEN (1ull << 30)

static void old_push(struct sym_proc *p, const struct sym_map *m)
{
	if (m->t_start >= m->t_end || p->nr_old + p->nr_big >= PP_SYM_MAX_OLD_MAPS)
		return;		/* never valid, or history full: forget the oldest detail */
	if (m->end - m->start >= OLD_BIG_LEN) {
		if (p->nr_big == p->alloc_big) {
			p->alloc_big = p->alloc_big ? p->alloc_big * 2 : 4;
			p->big = pp_xrealloc(p->big, p->alloc_big * sizeof(*p->big));
		}
		p->big[p->nr_big++] = *m;
		return;
	}
	if (p->nr_old == p->alloc_old) {
		p->alloc_old = p->alloc_old ? p->alloc_old * 2 : 16;
		p->old = pp_xrealloc(p->old, p->alloc_old * sizeof(*p->old));
	}
	p->old[p->nr_old++] = *m;
	if (m->end - m->start > p->old_max_len)
		p->old_max_len = m->end - m->start;
	p->old_sorted = false;
}

/* The exec window open at @time_ns, if any, ends there. */
static void exec_close(struct sym_proc *p, uint64_t time_ns)
{
	struct exec_win *w = p->nr_execs ? &p->execs[p->nr_execs - 1] : NULL;

	if (w && w->start <= time_ns && time_ns < w->end)
		w->end = time_ns;
}

/* A mapping at @time_ns: after the vDSO's, it ends the exec's window. */
static void exec_mapped(struct sym_proc *p, uint64_t time_ns, const char *path)
{
	struct exec_win *w = p->nr_execs ? &p->execs[p->nr_execs - 1] : NULL;

	if (!w || time_ns < w->start || time_ns >= w->end)
		return;
	if (w->vdso)
		w->end = time_ns;
	else
		w->vdso = !strcmp(path, "[vdso]");
}

static void exec_open(struct sym_proc *p, uint64_t time_ns)
{
	if (!time_ns || (p->nr_execs && time_ns < p->execs[p->nr_execs - 1].start))
		return;		/* nothing before it, or out of order: no window */
	exec_close(p, time_ns);
	if (p->nr_execs == MAX_EXECS) {
		memmove(p->execs, p->execs + 1, --p->nr_execs * sizeof(*p->execs));
	} else if (p->nr_execs == p->alloc_execs) {
		p->alloc_execs = p->alloc_execs ? p->alloc_execs * 2 : 2;
		p->execs = pp_xrealloc(p->execs, p->alloc_execs * sizeof(*p->execs));
	}
	p->execs[p->nr_execs++] = (struct exec_win){ time_ns, UINT64_MAX, false };
}

/* first live mapping that ends after @addr (ends are sorted too: no overlaps) */
static size_t live_first_after(const struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_live;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->live[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int proc_map_insert(struct sym_proc *p, struct sym_map *nm)
{
	size_t i = live_first_after(p, nm->start), j, nr_new, nr;
	struct sym_map left = { 0 }, right = { 0 };
	bool has_left = false, has_right = false;
	uint64_t newer = UINT64_MAX;

	for (j = i; j < p->nr_live && p->live[j].start < nm->end; j++)
		if (p->live[j].t_start > nm->t_start && p->live[j].t_start < newer)
			newer = p->live[j].t_start;
	if (newer != UINT64_MAX) {
		/* out of order: a newer mapping already covers part of it */
		nm->t_end = newer;
		old_push(p, nm);
		return 0;
	}
	if (j > i) {
		has_left = p->live[i].start < nm->start;
		has_right = p->live[j - 1].end > nm->end;
	}
	nr_new = has_left + 1 + has_right;
	nr = p->nr_live - (j - i) + nr_new;
	if (nr > PP_SYM_MAX_LIVE_MAPS)
		return PP_ERANGE;
	if (has_left) {
		left = p->live[i];
		left.end = nm->start;
	}
	if (has_right) {
		right = p->live[j - 1];
		right.pgoff += nm->end - right.start;
		right.start = nm->end;
	}
	for (size_t k = i; k < j; k++) {
		struct sym_map cut = p->live[k];

		if (cut.start < nm->start) {
			cut.pgoff += nm->start - cut.start;
			cut.start = nm->start;
		}
		if (cut.end > nm->end)
			cut.end = nm->end;
		cut.t_end = nm->t_start;
		old_push(p, &cut);
	}
	if (nr > p->alloc_live) {
		p->alloc_live = p->alloc_live ? p->alloc_live * 2 : 32;
		if (p->alloc_live < nr)
			p->alloc_live = nr;
		p->live = pp_xrealloc(p->live, p->alloc_live * sizeof(*p->live));
	}
	memmove(&p->live[i + nr_new], &p->live[j], (p->nr_live - j) * sizeof(*p->live));
	if (has_left)
		p->live[i++] = left;
	p->live[i++] = *nm;
	if (has_right)
		p->live[i] = right;
	p->nr_live = nr;
	return 0;
}

int pp_symtab_map_add(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
		      uint64_t len, uint64_t pgoff, const char *path, const uint8_t *build_id,
		      size_t build_id_sz)
{
	char hex[2 * PP_SYM_MAX_BUILD_ID + 1];
	struct sym_map m = {
		.start = addr, .end = addr + len, .pgoff = pgoff,
		.t_start = time_ns, .t_end = UINT64_MAX, .dso_gen = UINT64_MAX,
	};

	if (!len || addr + len < addr || build_id_sz > PP_SYM_MAX_BUILD_ID)
		return PP_ERANGE;
	if (path && strnlen(path, PP_SYM_MAX_NAME) >= PP_SYM_MAX_NAME)
		return PP_ERANGE;
	m.path = pp_symtab__intern(st, path ? path : "");
	if (build_id && build_id_sz) {
		pp_symtab__bid_hex(build_id, build_id_sz, hex);
		m.bid = pp_symtab__intern(st, hex);
	}
	struct sym_proc *p = proc_get(st, pid);
	size_t before = proc_bytes(p);
	int rc = proc_map_insert(p, &m);

	st->mem += proc_bytes(p) - before;
	if (!rc)
		exec_mapped(p, time_ns, m.path);
	return rc;
}

static void proc_retire_all(struct sym_proc *p, uint64_t time_ns)
{
	for (size_t i = 0; i < p->nr_live; i++) {
		p->live[i].t_end = time_ns;
		old_push(p, &p->live[i]);
	}
	p->nr_live = 0;
	p->hint = 0;
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->t_start < y->t_start ? -1 : x->t_start > y->t_start;
}

void pp_symtab_task_fork(struct pp_symtab *st, uint32_t ppid, uint32_t pid, uint64_t time_ns)
{
	struct sym_proc *parent, *child;
	struct sym_map *v;
	size_t n = 0;

	if (pid == ppid)
		return;
	child = proc_get(st, pid);
	size_t before = proc_bytes(child);
	proc_retire_all(child, time_ns);
	exec_close(child, time_ns);
	parent = proc_find(st, ppid);
	if (!parent || !(parent->nr_live + parent->nr_old + parent->nr_big)) {
		st->mem += proc_bytes(child) - before;
		return;
	}
	/* the parent's mappings valid at time_ns, live or already replaced */
	v = pp_xmalloc((parent->nr_live + parent->nr_old + parent->nr_big) * sizeof(*v));
	for (size_t i = 0; i < parent->nr_live; i++)
		if (parent->live[i].t_start <= time_ns)
			v[n++] = parent->live[i];
	for (size_t i = 0; i < parent->nr_old; i++)
		if (parent->old[i].t_start <= time_ns && time_ns < parent->old[i].t_end)
			v[n++] = parent->old[i];
	for (size_t i = 0; i < parent->nr_big; i++)
		if (parent->big[i].t_start <= time_ns && time_ns < parent->big[i].t_end)
			v[n++] = parent->big[i];
	qsort(v, n, sizeof(*v), map_cmp);
	for (size_t i = 0; i < n; i++) {
		v[i].t_start = time_ns;
		v[i].t_end = UINT64_MAX;
		if (proc_map_insert(child, &v[i]))
			break;
	}
	free(v);
	st->mem += proc_bytes(child) - before;
}

void pp_symtab_task_exec(struct pp_symtab *st, uint32_t pid, uint64_t time_ns)
{
	struct sym_proc *p = proc_find(st, pid);
	size_t before = proc_bytes(p);

	if (p) {
		proc_retire_all(p, time_ns);
		exec_open(p, time_ns);
	}
	st->mem += proc_bytes(p) - before;
}

void pp_symtab_task_exit(struct pp_symtab *st, uint32_t pid, uint64_t time_ns)
{
	/* Nothing to drop: see the header.  Kept as a hook for a future memory bound. */
	(void)st;
	(void)pid;
	(void)time_ns;
}

void pp_symtab_jit_attach(struct pp_symtab *st, uint32_t pid, struct pp_dso *jit)
{
	proc_get(st, pid)->jit = jit;
}

static struct sym_map *map_at(struct sym_proc *p, uint64_t t, uint64_t addr)
{
	struct sym_map *m, *best = NULL;
	size_t i, lo = 0, hi;

	if (p->hint < p->nr_live) {
		m = &p->live[p->hint];
		if (addr >= m->start && addr < m->end && m->t_start <= t)
			return m;
	}
	i = live_first_after(p, addr);
	if (i < p->nr_live && p->live[i].start <= addr && p->live[i].t_start <= t) {
		p->hint = i;
		return &p->live[i];
	}
	for (i = 0; i < p->nr_big; i++) {
		m = &p->big[i];
		if (addr >= m->start && addr < m->end && m->t_start <= t && t < m->t_end &&
		    (!best || m->t_start > best->t_start))
			best = m;
	}
	if (!p->nr_old)
		return best;
	if (!p->old_sorted) {
		qsort(p->old, p->nr_old, sizeof(*p->old), map_cmp);
		p->old_sorted = true;
	}
	hi = p->nr_old;
	while (lo < hi) {	/* first old piece with start > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (p->old[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {
		m = &p->old[i];
		if (addr - m->start >= p->old_max_len)
			break;
		if (addr < m->end && m->t_start <= t && t < m->t_end &&
		    (!best || m->t_start > best->t_start))
			best = m;
	}
	return best;
}

/* The mapping of @addr at @t, or during an exec, the one it had just before. */
static struct sym_map *proc_map_at(struct sym_proc *p, uint64_t t, uint64_t addr)
{
	struct sym_map *m = map_at(p, t, addr);
	size_t lo = 0, hi = p->nr_execs;

	if (m || !hi)
		return m;
	while (lo < hi) {	/* the first window that starts after t */
		size_t mid = lo + (hi - lo) / 2;

		if (p->execs[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && t < p->execs[lo - 1].end)
		m = map_at(p, p->execs[lo - 1].start - 1, addr);
	return m;
}

bool pp_symtab_lookup_user(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
			   struct pp_sym_res *res)
{
	struct sym_proc *p = proc_find(st, pid);
	struct sym_map *m;
	struct pp_dso *d;
	uint64_t vaddr;

	memset(res, 0, sizeof(*res));
	if (!p)
		return false;
	if (p->jit) {
		struct sym *s = pp_symtab__find(st, &p->jit->syms, false, addr);

		if (s) {
			res->dso = p->jit->path;
			res->dso_off = res->vaddr = addr;
			res->flags = PP_SYMR_MAPPED | PP_SYMR_DSO | PP_SYMR_JIT;
			return pp_symtab__fill(st, s, addr, res);
		}
	}
	m = proc_map_at(p, time_ns, addr);
	if (!m)
		return false;
	res->flags = PP_SYMR_MAPPED;
	res->dso = *m->path ? m->path : "//anon";
	res->dso_off = addr - m->start + m->pgoff;
	res->build_id = m->bid && *m->bid ? m->bid : NULL;
	d = map_dso(st, m);
	if (!d)
		return false;
	if (!res->build_id && *d->bid)
		res->build_id = d->bid;
	vaddr = d->flags & PP_DSO_JIT ? addr : res->dso_off - d->text_offset + d->text_vaddr;
	res->vaddr = vaddr;
	res->flags |= PP_SYMR_DSO | (d->flags & PP_DSO_JIT ? PP_SYMR_JIT : 0);
	return pp_symtab__fill(st, pp_symtab__find(st, &d->syms, false, vaddr), vaddr, res);
}

/* The state of table @sv as a word of a frame id: its generation, whether it is sorted. */
static uint64_t symvec_state(const struct symvec *sv)
{
	return (uint64_t)sv->gen << 1 | sv->sorted;
}

bool pp_symtab_frame_id(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
			bool kernel, uint64_t id[PP_FRAME_ID_WORDS])
{
	struct sym_proc *p;
	struct sym_map *m;
	struct pp_dso *d;

	memset(id, 0, PP_FRAME_ID_WORDS * sizeof(*id));
	id[0] = kernel ? 1 : 2;
	id[1] = addr;
	if (kernel) {
		const struct symvec *sv = st->ksyms_lent ? st->ksyms_lent : &st->ksyms;

		id[2] = (uintptr_t)sv;
		id[3] = symvec_state(sv);
		id[4] = sv->nr;
		return true;
	}
	p = proc_find(st, pid);
	if (!p || p->jit || !(m = proc_map_at(p, time_ns, addr)) || !(d = map_dso(st, m)) ||
	    (d->flags & PP_DSO_JIT))
		return false;
	id[2] = (uintptr_t)m->path;
	id[3] = (uintptr_t)m->bid;
	id[4] = m->start;
	id[5] = m->pgoff;
	id[6] = (uintptr_t)d;
	id[7] = symvec_state(&d->syms);
	id[8] = d->text_vaddr;
	id[9] = d->text_offset;
	id[10] = d->syms.nr;
	return true;
}

struct pp_dso *pp_symtab_user_dso(struct pp_symtab *st, uint32_t pid, uint64_t time_ns,
				  uint64_t addr, uint64_t *vaddr)
{
	struct sym_proc *p = proc_find(st, pid);
	struct sym_map *m = p ? proc_map_at(p, time_ns, addr) : NULL;
	struct pp_dso *d = m ? map_dso(st, m) : NULL;

	if (!d || (d->flags & PP_DSO_JIT))
		return NULL;
	*vaddr = addr - m->start + m->pgoff - d->text_offset + d->text_vaddr;
	return d;
}

bool pp_symtab_lookup(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
		      struct pp_sym_res *res)
{
	if (addr >> 63)
		return pp_symtab_lookup_kernel(st, addr, res);
	return pp_symtab_lookup_user(st, pid, time_ns, addr, res);
}
