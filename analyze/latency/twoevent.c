/* SPDX-License-Identifier: MIT */
/*
 * twoevent.c - the two-event engine: positions, keys, roles, backups, timeline, losses.
 *
 * For each event of an owned position (perf-prof's multi_trace_sample):
 *   1. key = key=EXPR | -k EXPR | instance (CPU, or thread with -p/-t);
 *   2. roles: it may end a pair (position > 0, or --cycle) and start one
 *      (position < last, or --cycle), both narrowed by role=EXPR bits 1/0;
 *      a sched_wakeup of a task that woke itself, or that is already running
 *      on its target CPU, starts nothing (it would never be matched);
 *   3. as event2: look the key up in the backup; a backed-up event1 of a
 *      pair (tp1, tp2) gives two(event1, event2) when event1 is older; the
 *      backup entry is dropped either way;
 *   4. as event1: back it up under its key, replacing an older one.
 * Without --detail untraced events are skipped and only backups are copied.
 * With --detail every event is copied onto the timeline first and traced
 * ones are processed in time order (after +N of later events have arrived),
 * so that two() can print the events around a pair; the timeline is trimmed
 * from its head while its head is unneeded (and older than the -N window of
 * the oldest backup).  Not here: what a pair means (twoevent-delay.c,
 * twoevent-call.c) and how it is printed (twoevent-detail.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/units.h"

/* --- nodes and the timeline ------------------------------------------------ */

#define TE_SLAB_NODES 512

/* A free node: nodes come from slabs and go back to the pool, never to malloc. */
struct te_node *ana_te_node_get(struct ana_te *te)
{
	struct te_node *n;

	if (!te->pool) {
		struct te_slab *slab = pp_xcalloc(1, sizeof(*slab) + TE_SLAB_NODES * sizeof(*n));
		slab->next = te->slabs;
		te->slabs = slab;
		for (unsigned i = TE_SLAB_NODES; i-- > 0;) {
			slab->nodes[i].free_next = te->pool;
			te->pool = &slab->nodes[i];
		}
		te->nr_nodes += TE_SLAB_NODES;
	}
	n = te->pool;
	te->pool = n->free_next;
	n->free_next = NULL;
	return n;
}

void ana_te_node_put(struct ana_te *te, struct te_node *n)
{
	uint8_t *buf = n->buf;
	uint32_t cap = n->buf_cap;

	memset(n, 0, sizeof(*n));
	n->buf = buf;
	n->buf_cap = cap;
	n->free_next = te->pool;
	te->pool = n;
}

/* Copy @ev into @n: its raw data and stack live in the node's own buffer. */
void ana_te_node_copy(struct te_node *n, const struct pp_event *ev)
{
	size_t stack_sz = (size_t)ev->nr_stack * sizeof(uint64_t);
	size_t need = stack_sz + ev->raw_sz;

	if (need > n->buf_cap) {
		size_t cap = (need + 15) & ~(size_t)15;	/* events of a type mostly share a size */
		free(n->buf);
		n->buf = pp_xmalloc(cap);
		n->buf_cap = (uint32_t)cap;
	}
	n->ev = *ev;
	if (stack_sz)
		memcpy(n->buf, ev->stack, stack_sz);
	if (ev->raw_sz)
		memcpy(n->buf + stack_sz, ev->raw, ev->raw_sz);
	n->ev.stack = stack_sz ? (const uint64_t *)n->buf : NULL;
	n->ev.raw = ev->raw_sz ? n->buf + stack_sz : NULL;
	n->ev.extra = NULL;
	n->ev.extra_sz = 0;
}

struct te_node *ana_te_node_dup(struct ana_te *te, const struct te_node *cur)
{
	struct te_node *n = ana_te_node_get(te);

	ana_te_node_copy(n, &cur->ev);
	n->key = cur->key;
	n->tp = cur->tp;
	n->ins = cur->ins;
	return n;
}

bool ana_te_tl_valid(struct ana_te *te, uint64_t seq)
{
	return seq >= te->tl_head_seq && seq < te->tl_next_seq;
}

struct te_node *ana_te_tl_at(struct ana_te *te, uint64_t seq)
{
	return te->tl[(te->tl_head + (seq - te->tl_head_seq)) & (te->tl_cap - 1)];
}

/* The first timeline seq whose event is at or after @time_ns (tl_next_seq if none). */
uint64_t ana_te_tl_first_at(struct ana_te *te, uint64_t time_ns)
{
	uint64_t lo = te->tl_head_seq, hi = te->tl_next_seq;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ana_te_tl_at(te, mid)->ev.time_ns < time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tl_push(struct ana_te *te, struct te_node *n)
{
	if (te->tl_nr == te->tl_cap) {
		uint64_t cap = te->tl_cap ? te->tl_cap * 2 : 1024;
		struct te_node **v = pp_xmalloc(cap * sizeof(*v));
		for (uint64_t i = 0; i < te->tl_nr; i++)
			v[i] = te->tl[(te->tl_head + i) & (te->tl_cap - 1)];
		free(te->tl);
		te->tl = v;
		te->tl_cap = cap;
		te->tl_head = 0;
	}
	te->tl[(te->tl_head + te->tl_nr) & (te->tl_cap - 1)] = n;
	te->tl_nr++;
	n->seq = te->tl_next_seq++;
	n->on_timeline = 1;
}

static struct te_node *tl_pop(struct ana_te *te)
{
	struct te_node *n = te->tl[te->tl_head];

	te->tl_head = (te->tl_head + 1) & (te->tl_cap - 1);
	te->tl_nr--;
	te->tl_head_seq++;
	return n;
}

/* --- the backup -------------------------------------------------------------- */

static void needed_unlink(struct ana_te *te, struct te_node *n)
{
	if (n->nprev)
		n->nprev->nnext = n->nnext;
	else
		te->needed_head = n->nnext;
	if (n->nnext)
		n->nnext->nprev = n->nprev;
	else
		te->needed_tail = n->nprev;
	n->nprev = n->nnext = NULL;
}

static void backup_remove(struct ana_te *te, struct te_node *n)
{
	void **slot = pp_u64map_slot(&te->backup, n->key);
	struct te_node **pp = (struct te_node **)slot;

	while (*pp && *pp != n)
		pp = &(*pp)->bnext;
	if (*pp)
		*pp = n->bnext;
	if (!*slot)
		pp_u64map_del(&te->backup, n->key);
	n->bnext = NULL;
	n->in_backup = 0;
	needed_unlink(te, n);
	te->nr_backup--;
	if (n->on_timeline)
		n->unneeded = 1;
	else
		ana_te_node_put(te, n);
}

/* The newest backup of @key (of event @tp when given: nested-trace's entry). */
static struct te_node *backup_find(struct ana_te *te, uint64_t key, const struct te_tp *tp)
{
	struct te_node *n = pp_u64map_get(&te->backup, key);

	while (n && tp && n->tp != tp)
		n = n->bnext;
	return n;
}

/* Back @cur up; in --detail mode @cur is its timeline node, else it is copied. */
static void backup_add(struct ana_te *te, struct te_node *cur, bool *need_free)
{
	struct te_node *head = pp_u64map_get(&te->backup, cur->key), *n;
	void **slot;

	ana_te_edge_backup(te, cur->key);
	if (head) {
		if (cur->ev.time_ns < head->ev.time_ns) {	/* out of order */
			cur->unneeded = 1;
			*need_free = true;
			return;
		}
		/* one backup per key; nested-trace keeps a stack, replacing only a twin */
		if (!te->cfg.nested || head->ev.time_ns == cur->ev.time_ns) {
			backup_remove(te, head);
			*need_free = true;
		}
	}
	if (cur->on_timeline) {
		n = cur;
	} else {
		n = ana_te_node_dup(te, cur);
		n->need_find_prev = cur->need_find_prev;
		n->need_backup = cur->need_backup;
		n->need_remove = cur->need_remove;
	}
	slot = pp_u64map_slot(&te->backup, n->key);
	n->bnext = *slot;
	*slot = n;
	n->in_backup = 1;
	n->unneeded = 0;
	n->nprev = te->needed_tail;
	n->nnext = NULL;
	if (te->needed_tail)
		te->needed_tail->nnext = n;
	else
		te->needed_head = n;
	te->needed_tail = n;
	te->nr_backup++;
}

static int cmp_node_key(const void *a, const void *b)
{
	const struct te_node *x = *(struct te_node *const *)a, *y = *(struct te_node *const *)b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ev.time_ns != y->ev.time_ns)	/* newest first within a key */
		return x->ev.time_ns > y->ev.time_ns ? -1 : 1;
	return 0;
}

/* Every backup, sorted by key (perf-prof walks its rb-tree in key order). */
static struct te_node **backup_sorted(struct ana_te *te, size_t *nr)
{
	struct te_node **v = pp_xmalloc((te->nr_backup + 1) * sizeof(*v));
	size_t it = 0, n = 0;
	uint64_t k;
	void *val;

	while (pp_u64map_next(&te->backup, &it, &k, &val))
		for (struct te_node *b = val; b; b = b->bnext)
			v[n++] = b;
	qsort(v, n, sizeof(*v), cmp_node_key);
	*nr = n;
	return v;
}

/* --- events ------------------------------------------------------------------ */

static uint64_t field(const struct pp_event *ev, const struct pp_field *f)
{
	return f ? ana_field_read(ev, f) : 0;
}

/*
 * perf-prof's sched_event() and sched_wakeup_unnecessary(); *@unknown when that hangs
 * on the task of a target CPU no switch has named yet (internal.h, TE_NO_PID).
 */
static bool wakeup_unnecessary(struct ana_te *te, const struct te_tp *tp, const struct pp_event *ev,
			       bool *unknown)
{
	if (te->sched_level == 2 && tp->is_switch) {
		if (ev->cpu >= te->nr_running) {
			uint32_t n = ev->cpu + 64;
			te->running = pp_xrealloc(te->running, n * sizeof(*te->running));
			memset(te->running + te->nr_running, 0xff,
			       (n - te->nr_running) * sizeof(uint32_t));
			te->nr_running = n;
		}
		te->running[ev->cpu] = (uint32_t)field(ev, tp->f_pid2);
	}
	if (!te->sched_level || !tp->is_wakeup)
		return false;
	uint32_t pid = (uint32_t)field(ev, tp->f_pid);
	uint64_t target = field(ev, tp->f_cpu);
	uint64_t common_pid = 0;
	ana_field_u64(ev, "common_pid", &common_pid);
	if ((uint32_t)common_pid == pid)
		return true;
	if (te->sched_level != 2)
		return false;
	*unknown = target >= te->nr_running || te->running[target] == TE_NO_PID;
	return !*unknown && te->running[target] == pid;
}

static void fill_iter(struct ana_te *te, struct te_iter *it, struct te_node *e1, struct te_node *e2)
{
	it->e1 = e1->seq;
	it->e2 = e2 ? e2->seq : UINT64_MAX;
	it->start = e1->seq;
	it->recent_cpu = -1;
	if (te->detail.before_ns) {
		uint64_t t1 = e1->ev.time_ns, b = te->detail.before_ns;
		it->start = ana_te_tl_first_at(te, t1 > b ? t1 - b : 0);
	}
}

static void try_two(struct ana_te *te, struct te_node *cur, bool *need_free)
{
	struct te_node *prev;
	struct te_pair *p;

	if (!cur->need_find_prev)
		return;
	prev = backup_find(te, cur->key, te->cfg.nested ? cur->tp->entry : NULL);
	if (!prev)
		ana_te_edge_miss(te, cur);	/* --state-out: what the range before left */
	if (prev) {
		p = ana_te_pair_find(te, prev->tp, cur->tp);
		if (p && prev->ev.time_ns < cur->ev.time_ns) {
			struct te_iter it;
			if (te->detail.enabled)
				fill_iter(te, &it, prev, cur);
			te->impl->two(te, p, prev, cur, te->detail.enabled ? &it : NULL);
		}
		if (cur->need_remove) {
			backup_remove(te, prev);
			*need_free = true;
		}
	} else if (te->impl->call_based) {
		p = ana_te_pair_find(te, cur->tp, NULL);
		if (p)
			te->impl->two(te, p, cur, NULL, NULL);
	}
}

static void try_backup(struct ana_te *te, struct te_node *cur, bool *need_free)
{
	if (cur->need_backup)
		backup_add(te, cur, need_free);
	else
		*need_free = true;
}

/* The next traced timeline event ready to be processed (+N of later events seen). */
static struct te_node *first_pending(struct ana_te *te, uint64_t now_ns, bool all)
{
	while (te->pend_seq < te->tl_next_seq) {
		struct te_node *n = ana_te_tl_at(te, te->pend_seq);
		if (!n->pending) {
			te->pend_seq++;
			continue;
		}
		if (!all && te->detail.after_ns &&
		    (now_ns < te->detail.after_ns || n->ev.time_ns > now_ns - te->detail.after_ns))
			return NULL;
		te->pend_seq++;
		n->pending = 0;
		n->unneeded = !n->need_backup;
		return n;
	}
	return NULL;
}

static void tl_trim(struct ana_te *te)
{
	uint64_t before = 0;

	if (te->detail.before_ns && te->tl_nr) {
		const struct te_node *first = te->needed_head;
		if (!first && te->pend_seq < te->tl_next_seq)
			first = ana_te_tl_at(te, te->pend_seq);
		if (!first)
			first = ana_te_tl_at(te, te->tl_next_seq - 1);
		if (first->ev.time_ns > te->detail.before_ns)
			before = first->ev.time_ns - te->detail.before_ns;
	}
	while (te->tl_nr) {
		struct te_node *n = ana_te_tl_at(te, te->tl_head_seq);
		if (!((before == 0 && n->unneeded) || n->ev.time_ns < before))
			break;
		if (n->pending || te->pend_seq <= n->seq)
			break;	/* never drop what is not processed yet */
		if (n->in_backup)
			backup_remove(te, n);
		tl_pop(te);
		n->on_timeline = 0;
		ana_te_node_put(te, n);
	}
}

static void process(struct ana_te *te, struct te_node *n, bool *need_free)
{
	try_two(te, n, need_free);
	try_backup(te, n, need_free);
}

static void drain_pending(struct ana_te *te, uint64_t now_ns, bool all)
{
	struct te_node *first;
	bool need_free = false;

	while ((first = first_pending(te, now_ns, all)))
		process(te, first, &need_free);
	if (need_free)
		tl_trim(te);
}

/* rundelay -p/-t: the thread named by the event's field is one of ours. */
static bool target_match(struct ana_te *te, const struct te_tp *tp, const struct pp_event *ev)
{
	int64_t tid = (int32_t)ana_field_read(ev, tp->f_target);

	if (tid <= 0)
		return false;
	if (pp_list_has(tp->t_tids, tp->nr_t_tids, tid) || pp_list_has(tp->t_pids, tp->nr_t_pids, tid))
		return true;
	if (tp->nr_t_pids &&
	    pp_list_has(tp->t_pids, tp->nr_t_pids, ana_task_pid(te->s, (uint32_t)tid)))
		return true;
	return tp->t_forks && ana_task_forked_by(te->s, (uint32_t)tid, tp->t_pids, tp->nr_t_pids,
						  tp->t_tids, tp->nr_t_tids);
}

void ana_te_feed(struct ana_te *te, const struct pp_event *ev)
{
	struct te_tp *tp;
	struct te_node tmp, *cur;
	bool need_free = false, unnecessary = false, unknown = false;
	uint64_t role = 3;
	int idx;

	if (!ev->sel || ev->sel->index >= te->az->nr_sels)
		return;
	idx = te->tp_of_sel[ev->sel->index];
	if (idx < 0)
		return;
	tp = &te->tps[idx];
	if (tp->extra_filter && !ana_expr_eval(te->az, tp->extra_filter, ev))
		return;
	if (tp->f_target && !target_match(te, tp, ev))
		return;
	if (ev->time_ns > te->recent_ns)
		te->recent_ns = ev->time_ns;
	if (tp->trigger) {
		te->impl->print(te, ev->time_ns);
		memset(&tmp, 0, sizeof(tmp));
		tmp.ev = *ev;
		tmp.tp = tp;
		ana_te_print_event(te, &tmp, NULL);
	} else if (te->az->opt.verbose >= 2) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.ev = *ev;
		tmp.tp = tp;
		ana_te_print_event(te, &tmp, NULL);
	}

	memset(&tmp, 0, sizeof(tmp));
	if (!te->cfg.nested) {
		unnecessary = wakeup_unnecessary(te, tp, ev, &unknown);
		if (unnecessary && tp->pos != te->nr_pos - 1)
			te->wakeup_unnecessary++;
		if (tp->role)
			role = (uint64_t)ana_expr_eval(te->az, tp->role, ev);
		tmp.need_find_prev = (tp->pos != 0 || te->cfg.cycle) && (role & 2);
		tmp.need_backup = (tp->pos != te->nr_pos - 1 ? !unnecessary : te->cfg.cycle) &&
				  (role & 1);
		tmp.need_remove = 1;
	} else {
		tmp.need_find_prev = te->impl->call_based || tp->entry;
		tmp.need_backup = !tp->entry;
		tmp.need_remove = tp->entry != NULL;
	}
	tmp.ins = te->thread_mode ? ev->tid : ev->cpu;
	tmp.key = tp->key ? (uint64_t)ana_expr_eval(te->az, tp->key, ev) : tmp.ins;
	tmp.tp = tp;

	if (!te->detail.enabled) {
		if (tp->untraced)
			return;
		tmp.ev = *ev;		/* borrowed for this call only */
		try_two(te, &tmp, &need_free);
		/* --state-out: the range before decides it (--detail has no state) */
		if (unknown && tmp.need_backup && ana_te_edge_defer(te, &tmp))
			return;
		try_backup(te, &tmp, &need_free);
		return;
	}

	tmp.unneeded = !tmp.need_backup || tp->untraced;
	if (!te->tl_nr && tmp.unneeded && !te->detail.before_ns && !te->detail.after_ns)
		return;
	cur = ana_te_node_get(te);
	ana_te_node_copy(cur, ev);
	cur->key = tmp.key;
	cur->tp = tp;
	cur->ins = tmp.ins;
	cur->need_find_prev = tp->untraced ? 0 : tmp.need_find_prev;
	cur->need_backup = tp->untraced ? 0 : tmp.need_backup;
	cur->need_remove = tmp.need_remove;
	cur->unneeded = tp->untraced;
	cur->pending = !tp->untraced;
	tl_push(te, cur);
	need_free = tmp.unneeded;
	drain_pending(te, ev->time_ns, false);
	if (need_free)
		tl_trim(te);
}

/* --- unmatched event1s, losses ------------------------------------------------- */

bool ana_te_remaining(struct ana_te *te, struct te_node *left, int reason)
{
	struct te_pair *p = ana_te_pair_find(te, left->tp, NULL);

	return !p || !te->impl->remaining || te->impl->remaining(te, p, left, reason, NULL);
}

static bool call_remaining(struct ana_te *te, struct te_node *left, int reason)
{
	struct te_pair *p = ana_te_pair_find(te, left->tp, NULL);
	struct te_iter it;

	if (!p || !te->impl->remaining)
		return true;
	if (te->detail.enabled && left->on_timeline)
		fill_iter(te, &it, left, NULL);
	return te->impl->remaining(te, p, left, reason,
				   te->detail.enabled && left->on_timeline ? &it : NULL);
}

static void handle_remaining(struct ana_te *te, int reason)
{
	size_t nr;
	struct te_node **v = backup_sorted(te, &nr);

	for (size_t i = 0; i < nr; i++)
		if (!call_remaining(te, v[i], reason))
			break;
	free(v);
}

static void drop_all_backups(struct ana_te *te)
{
	size_t nr;
	struct te_node **v = backup_sorted(te, &nr);

	for (size_t i = 0; i < nr; i++)
		backup_remove(te, v[i]);
	free(v);
}

static void reclaim(struct ana_te *te, uint64_t key, int reason)
{
	struct te_node *n = pp_u64map_get(&te->backup, key);
	bool more = true;

	while (n) {
		struct te_node *next = n->bnext;
		if (more)
			more = call_remaining(te, n, reason);
		backup_remove(te, n);
		n = next;
	}
}

void ana_te_reclaim(struct ana_te *te, uint64_t key, uint64_t time_ns)
{
	if (te->detail.enabled)
		drain_pending(te, time_ns, true);
	if (time_ns > te->recent_ns)
		te->recent_ns = time_ns;
	ana_te_edge_close(te, key, TE_HEAD_RECLAIM, time_ns);
	reclaim(te, key, TE_RR_RECLAIM);
	if (te->detail.enabled)
		tl_trim(te);
}

void ana_te_print_lost(struct ana_te *te, const struct pp_lost_ev *l)
{
	char wall[48];

	if (te->text)
		fprintf(te->fp, "%s %s: lost %llu events on CPU #%u\n",
			ana_time_str(te->s, l->time_ns, wall, sizeof(wall)), te->az->name,
			(unsigned long long)l->count, l->cpu);
}

void ana_te_lost(struct ana_te *te, const struct pp_lost_ev *l)
{
	if (!te->rec)		/* --state-out prints nothing: its state keeps the loss */
		ana_te_print_lost(te, l);
	ana_te_edge_loss(te, l);
	/* a switch may be lost with it: which task runs where is known again at the next */
	if (te->nr_running)
		memset(te->running, 0xff, te->nr_running * sizeof(*te->running));
	if (te->detail.enabled)
		drain_pending(te, l->time_ns, true);
	if (!te->keyed && !te->thread_mode) {
		ana_te_edge_close(te, l->cpu, TE_HEAD_LOST, l->time_ns);
		reclaim(te, l->cpu, TE_RR_LOST);	/* only that CPU's pairs are unsafe */
	} else {
		ana_te_edge_lost(te, l->time_ns);
		handle_remaining(te, TE_RR_LOST);
		drop_all_backups(te);
	}
	if (te->detail.enabled)
		tl_trim(te);
}

/* --- reports ------------------------------------------------------------------- */

const char *ana_te_unit(struct ana_te *te)
{
	return "us";
}

void ana_te_print_time_line(struct ana_te *te, uint64_t now_ns)
{
	char wall[48];

	fprintf(te->fp, "%s \n", ana_time_str(te->s, now_ns, wall, sizeof(wall)));
}

void ana_te_tick(struct ana_te *te, uint64_t now_ns)
{
	te->impl->print(te, now_ns);
}

void ana_te_settle(struct ana_te *te)
{
	if (te->detail.enabled)
		drain_pending(te, te->recent_ns, true);
	handle_remaining(te, TE_RR_EXIT);
	ana_te_edge_settle(te);		/* a report of states: their ranges' ends */
}

int ana_te_finish(struct ana_te *te)
{
	uint64_t end = ana_capture_end_ns(te->s);

	ana_te_settle(te);
	te->impl->print(te, end > te->recent_ns ? end : te->recent_ns);
	if (te->az->opt.verbose && te->text)
		fprintf(te->fp, "# %s: %llu backups left, %llu nodes allocated, %llu sched_wakeup "
			"unnecessary\n", te->az->name, (unsigned long long)te->nr_backup,
			(unsigned long long)te->nr_nodes,
			(unsigned long long)te->wakeup_unnecessary);
	return 0;
}

void ana_te_free(struct ana_te *te)
{
	if (!te)
		return;
	if (te->impl && te->impl->release)
		te->impl->release(te);
	ana_te_lat_reset(te);
	pp_u64map_release(&te->lat);
	ana_te_edge_free(te, te->rec);
	ana_te_edges_release(te);
	/* every node lives in a slab: free the buffers, then the slabs */
	for (struct te_slab *slab = te->slabs, *next; slab; slab = next) {
		next = slab->next;
		for (unsigned i = 0; i < TE_SLAB_NODES; i++)
			free(slab->nodes[i].buf);
		free(slab);
	}
	pp_u64map_release(&te->backup);
	free(te->tl);
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		if (te->pairs[i]->heatmap)
			fclose(te->pairs[i]->heatmap);
		free(te->pairs[i]);
	}
	free(te->pairs);
	free(te->pair_tab);
	for (unsigned i = 0; i < te->nr_tps; i++) {
		struct te_tp *tp = &te->tps[i];
		free(tp->key_text);
		free(tp->extra_filter_text);
		pp_expr_free(tp->key);
		pp_expr_free(tp->role);
		pp_expr_free(tp->printkey);
		pp_expr_free(tp->size);
		pp_expr_free(tp->extra_filter);
		free(tp->t_pids);
		free(tp->t_tids);
		free(tp->target_field);
	}
	free(te->tps);
	free(te->tp_of_sel);
	free(te->running);
	pp_buf_release(&te->line);
	pp_buf_release(&te->scratch);
	free(te);
}

/* --- callbacks for analyzers ---------------------------------------------------- */

/* The engine of @az: ana_te_new() put it in az->engine. */
static struct ana_te *az_te(struct pp_az *az)
{
	return az->engine;
}

int ana_te_az_init(struct pp_az *az, const struct ana_te_config *cfg)
{
	struct ana_te *te;
	int rc = ana_te_new(az, cfg, &te);

	return rc ? rc : ana_te_start(te);
}

void ana_te_az_event(struct pp_az *az, const struct pp_event *ev)
{
	ana_te_feed(az_te(az), ev);
}

void ana_te_az_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	ana_te_lost(az_te(az), l);
}

void ana_te_az_interval(struct pp_az *az, uint64_t now_ns)
{
	ana_te_tick(az_te(az), now_ns);
}

int ana_te_az_finish(struct pp_az *az)
{
	return az_te(az) ? ana_te_finish(az_te(az)) : 0;
}

void ana_te_az_release(struct pp_az *az)
{
	ana_te_free(az_te(az));
	az->engine = NULL;
}
