/* SPDX-License-Identifier: MIT */
/*
 * twoevent-edge.c - what a capture range leaves open, so that two adjacent
 * ranges join into the pairs one replay makes.
 *
 * The engine's only memory across events is its backups: per key the newest
 * event1 (a stack of open entries in nested mode).  A range's *tails* are the
 * backups left at its end.  A key's *head* is the range's first events that
 * looked for a backup and found none of the range's own: in one replay they
 * would have met the tails of the range before.  A head is closed once the
 * key's state no longer depends on that range: by a backup (one per key, it
 * replaces whatever was there), by the looking event itself (it removes what
 * it finds), or by a loss or a reclaim, which drop the key's backups handing
 * them to ->remaining() as the replay does at that time.  Nested mode keeps a
 * stack: its heads stay open, and the range's tails sit on top of the older.
 * A head may also hold wakeups the range could not judge (which task runs on
 * their target CPU is the range before's to say, internal.h TE_NO_PID): with the
 * range's running tasks at its end, a join decides them in their order.
 *
 * Joining ranges A and B (B starts 1 ns after A ends) replays B's heads on
 * A's tails, key by key in ascending order; what a head did not find goes on
 * looking in the ranges before A (the joined head).  At a report each range's
 * tails are handed to ->remaining() with the range's last time, as a replay's
 * finish does.  Not here: the engine's aggregate (twoevent-state.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/wire.h"

#define EDGE_MAX_RAW (1u << 20)		/* an event's raw bytes in a state */
#define EDGE_MAX_STACK 4096u		/* its callchain entries */

/* --- noting a --state-out replay's heads ------------------------------------------ */

static struct te_head *head_get(struct te_edge *e, uint64_t key)
{
	void **slot = pp_u64map_slot(&e->heads, key);

	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct te_head));
	return *slot;
}

static void head_push(struct te_head *h, struct te_node *n)
{
	if (h->nr == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 2;
		h->ev = pp_xrealloc(h->ev, h->cap * sizeof(*h->ev));
	}
	h->ev[h->nr++] = n;
}

void ana_te_edge_miss(struct ana_te *te, const struct te_node *cur)
{
	struct te_head *h;

	if (!te->rec || te->rec->lost)
		return;
	h = pp_u64map_get(&te->rec->heads, cur->key);
	if (h && h->state != TE_HEAD_OPEN)
		return;
	h = head_get(te->rec, cur->key);
	head_push(h, ana_te_node_dup(te, cur));
	if (!te->cfg.nested)
		h->state = TE_HEAD_CLOSED;	/* it removes what it finds */
}

void ana_te_edge_backup(struct ana_te *te, uint64_t key)
{
	struct te_head *h;

	if (!te->rec || te->rec->lost || te->cfg.nested)
		return;
	h = head_get(te->rec, key);
	if (h->state == TE_HEAD_OPEN)	/* new, or only undecided wakeups so far */
		h->state = TE_HEAD_CLOSED;
}

bool ana_te_edge_defer(struct ana_te *te, const struct te_node *cur)
{
	struct te_head *h;
	struct te_node *n;

	/* after a loss every range forgets the running tasks: nothing to ask the one before */
	if (!te->rec || te->rec->lost || te->rec->nr_losses || te->cfg.nested)
		return false;
	h = pp_u64map_get(&te->rec->heads, cur->key);
	if (h && h->state != TE_HEAD_OPEN)
		return false;	/* the key's backups are the range's own: judged as by one */
	h = head_get(te->rec, cur->key);
	n = ana_te_node_dup(te, cur);
	n->hkind = TE_HK_COND;
	head_push(h, n);
	return true;
}

void ana_te_edge_set_running(struct te_edge *e, const uint32_t *running, uint32_t nr)
{
	free(e->running);
	e->running = NULL;
	e->nr_running = nr;
	if (nr) {
		e->running = pp_xmalloc(nr * sizeof(*e->running));
		memcpy(e->running, running, nr * sizeof(*e->running));
	}
}

void ana_te_edge_close(struct ana_te *te, uint64_t key, enum te_head_state why, uint64_t time_ns)
{
	struct te_head *h;

	if (!te->rec || te->rec->lost)
		return;
	h = head_get(te->rec, key);
	if (h->state == TE_HEAD_OPEN) {
		h->state = (uint8_t)why;
		h->time_ns = time_ns;
	}
}

void ana_te_edge_lost(struct ana_te *te, uint64_t time_ns)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!te->rec || te->rec->lost)
		return;
	te->rec->lost = true;
	te->rec->lost_ns = time_ns;
	while (pp_u64map_next(&te->rec->heads, &it, &k, &v)) {
		struct te_head *h = v;
		if (h->state == TE_HEAD_OPEN) {
			h->state = TE_HEAD_LOST;
			h->time_ns = time_ns;
		}
	}
}

static void loss_push(struct te_edge *e, const struct pp_lost_ev *l)
{
	if (e->nr_losses == e->cap_losses) {
		e->cap_losses = e->cap_losses ? e->cap_losses * 2 : 4;
		e->losses = pp_xrealloc(e->losses, e->cap_losses * sizeof(*e->losses));
	}
	e->losses[e->nr_losses++] = *l;
}

void ana_te_edge_loss(struct ana_te *te, const struct pp_lost_ev *l)
{
	if (te->rec)
		loss_push(te->rec, l);
}

/* --- edges ---------------------------------------------------------------------------- */

struct te_edge *ana_te_edge_new(void)
{
	return pp_xcalloc(1, sizeof(struct te_edge));
}

static void stack_free(struct ana_te *te, struct te_node *n)
{
	while (n) {
		struct te_node *next = n->bnext;
		ana_te_node_put(te, n);
		n = next;
	}
}

static void head_free(struct ana_te *te, struct te_head *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr; i++)
		if (h->ev[i])
			ana_te_node_put(te, h->ev[i]);
	free(h->ev);
	free(h);
}

void ana_te_edge_free(struct ana_te *te, struct te_edge *e)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!e)
		return;
	while (pp_u64map_next(&e->heads, &it, &k, &v))
		head_free(te, v);
	it = 0;
	while (pp_u64map_next(&e->tails, &it, &k, &v))
		stack_free(te, v);
	pp_u64map_release(&e->heads);
	pp_u64map_release(&e->tails);
	free(e->losses);
	free(e->running);
	free(e);
}

/* --- the wire form (docs/state-format.md "the latency engine's edges") -------------- */

static void put_node(struct ana_te *te, struct pp_buf *b, const struct te_node *n)
{
	pp_wire_put_varint(b, (uint64_t)(n->tp - te->tps));
	pp_wire_put_varint(b, n->key);
	pp_wire_put_varint(b, n->ins);
	pp_wire_put_varint(b, n->ev.time_ns);
	pp_wire_put_varint(b, n->ev.cpu);
	pp_wire_put_varint(b, n->ev.pid);
	pp_wire_put_varint(b, n->ev.tid);
	pp_wire_put_varint(b, n->ev.period);
	pp_wire_put_bytes(b, n->ev.raw, n->ev.raw_sz);
	pp_wire_put_varint(b, n->ev.nr_stack);
	for (uint32_t i = 0; i < n->ev.nr_stack; i++)
		pp_wire_put_varint(b, n->ev.stack[i]);
}

void ana_te_edge_put(struct ana_te *te, struct pp_buf *out, const struct te_edge *e,
		     const struct pp_u64map *tails)
{
	size_t nr, nt = 0;
	uint64_t *keys;

	pp_wire_put_varint(out, e->recent_ns);
	pp_wire_put_u8(out, e->lost);
	if (e->lost)
		pp_wire_put_varint(out, e->lost_ns);
	pp_wire_put_varint(out, e->nr_losses);
	for (size_t i = 0; i < e->nr_losses; i++) {
		pp_wire_put_varint(out, e->losses[i].time_ns);
		pp_wire_put_varint(out, e->losses[i].cpu);
		pp_wire_put_varint(out, e->losses[i].count);
	}
	keys = pp_u64map_keys(&e->heads, &nr);
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct te_head *h = pp_u64map_get(&e->heads, keys[i]);
		pp_wire_put_varint(out, keys[i]);
		pp_wire_put_u8(out, h->state);
		if (h->state == TE_HEAD_LOST || h->state == TE_HEAD_RECLAIM)
			pp_wire_put_varint(out, h->time_ns);
		pp_wire_put_varint(out, h->nr);
		for (size_t j = 0; j < h->nr; j++) {
			pp_wire_put_u8(out, h->ev[j] ? h->ev[j]->hkind : TE_HK_CLEAR);
			if (h->ev[j])
				put_node(te, out, h->ev[j]);
		}
	}
	free(keys);
	keys = pp_u64map_keys(tails, &nr);
	for (size_t i = 0; i < nr; i++)
		for (const struct te_node *n = pp_u64map_get(tails, keys[i]); n; n = n->bnext)
			nt++;
	pp_wire_put_varint(out, nt);
	for (size_t i = 0; i < nr; i++) {
		struct te_node *stack[64], **v = stack;
		size_t d = 0, cap = 64;
		/* oldest first: a reader pushes them back in order */
		for (struct te_node *n = pp_u64map_get(tails, keys[i]); n; n = n->bnext) {
			if (d == cap) {
				cap *= 2;
				v = v == stack ? memcpy(pp_xmalloc(cap * sizeof(*v)), stack, sizeof(stack))
					       : pp_xrealloc(v, cap * sizeof(*v));
			}
			v[d++] = n;
		}
		while (d--)
			put_node(te, out, v[d]);
		if (v != stack)
			free(v);
	}
	free(keys);
	nt = 0;
	for (uint32_t c = 0; c < e->nr_running; c++)
		nt += e->running[c] != TE_NO_PID;
	pp_wire_put_varint(out, nt);
	for (uint32_t c = 0; c < e->nr_running; c++)
		if (e->running[c] != TE_NO_PID) {
			pp_wire_put_varint(out, c);
			pp_wire_put_varint(out, e->running[c]);
		}
}

void ana_te_edge_nodes(struct ana_te *te, const struct te_edge *e, const struct pp_u64map *tails,
		       void (*fn)(struct ana_te *te, const struct te_node *n, void *arg), void *arg)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	while (pp_u64map_next(&e->heads, &it, &k, &v)) {
		const struct te_head *h = v;
		for (size_t j = 0; j < h->nr; j++)
			if (h->ev[j])
				fn(te, h->ev[j], arg);
	}
	it = 0;
	while (pp_u64map_next(tails, &it, &k, &v))
		for (const struct te_node *n = v; n; n = n->bnext)
			fn(te, n, arg);
}

/* One event; NULL after pp_wire_fail(). */
static struct te_node *read_node(struct ana_te *te, struct pp_wire *r, const char *where)
{
	uint64_t tp = pp_wire_varint(r), key = pp_wire_varint(r);
	uint32_t ins = pp_wire_u32(r, "instance");
	struct pp_event ev = { 0 };
	uint64_t *stack = NULL;
	struct te_node *n;
	size_t raw_sz, nr_stack;

	ev.time_ns = pp_wire_varint(r);
	ev.cpu = pp_wire_u32(r, "cpu");
	ev.pid = pp_wire_u32(r, "pid");
	ev.tid = pp_wire_u32(r, "tid");
	ev.period = pp_wire_varint(r);
	ev.raw = pp_wire_bytes(r, &raw_sz);
	nr_stack = pp_wire_count(r, 1, EDGE_MAX_STACK, "callchain entries");
	if (!pp_wire_ok(r))
		return NULL;
	if (tp >= te->nr_tps || raw_sz > EDGE_MAX_RAW) {
		pp_wire_fail(r, PP_EBAD_RECORD, "%s: event %llu of %u, %zu raw bytes", where,
			     (unsigned long long)tp, te->nr_tps, raw_sz);
		return NULL;
	}
	if (nr_stack) {
		stack = pp_xmalloc(nr_stack * sizeof(*stack));
		for (size_t i = 0; i < nr_stack; i++)
			stack[i] = pp_wire_varint(r);
	}
	if (!pp_wire_ok(r)) {
		free(stack);
		return NULL;
	}
	ev.raw_sz = (uint32_t)raw_sz;
	ev.stack = stack;
	ev.nr_stack = (uint32_t)nr_stack;
	ev.type = te->tps[tp].sel->type;
	ev.sel = te->tps[tp].sel;
	n = ana_te_node_get(te);
	ana_te_node_copy(n, &ev);
	n->tp = &te->tps[tp];
	n->key = key;
	n->ins = ins;
	free(stack);
	return n;
}

/*
 * One backup per key: an event that looked back closes its key, so two never follow
 * each other without what a range left between them; a head open has some entries.
 */
static int head_check(struct ana_te *te, struct pp_wire *r, const struct te_head *h, uint64_t key)
{
	bool bad = !te->cfg.nested && h->state == TE_HEAD_OPEN && !h->nr;

	for (size_t i = 1; i < h->nr && !te->cfg.nested && !bad; i++)
		bad = h->ev[i] && h->ev[i - 1] && h->ev[i]->hkind == TE_HK_LOOK &&
		      h->ev[i - 1]->hkind == TE_HK_LOOK;
	if (bad)
		return pp_wire_fail(r, PP_EBAD_RECORD, "head of key %llu: state %u with %zu events",
				    (unsigned long long)key, h->state, h->nr);
	return 0;
}

static int read_head(struct ana_te *te, struct pp_wire *r, struct te_edge *e, uint64_t key)
{
	uint8_t state = pp_wire_u8(r);
	uint64_t time_ns = state == TE_HEAD_LOST || state == TE_HEAD_RECLAIM ? pp_wire_varint(r) : 0;
	size_t nr = pp_wire_count(r, 1, SIZE_MAX, "head entries");
	struct te_head *h;

	if (!pp_wire_ok(r))
		return r->err;
	if (state > TE_HEAD_RECLAIM)
		return pp_wire_fail(r, PP_EBAD_RECORD, "head of key %llu: state %u",
				    (unsigned long long)key, state);
	h = head_get(e, key);
	h->state = state;
	h->time_ns = time_ns;
	for (size_t i = 0; i < nr; i++) {
		uint8_t kind = pp_wire_u8(r);
		struct te_node *n = NULL;
		if (pp_wire_ok(r) && (kind > TE_HK_CLEAR || (kind && te->cfg.nested)))
			return pp_wire_fail(r, PP_EBAD_RECORD, "head of key %llu: entry kind %u",
					    (unsigned long long)key, kind);
		if (kind != TE_HK_CLEAR && !(n = read_node(te, r, "a head")))
			return r->err;
		head_push(h, n);
		if (!n)
			continue;
		n->hkind = kind;
		if (n->key != key)
			return pp_wire_fail(r, PP_EBAD_RECORD, "head of key %llu: an event of key "
					    "%llu", (unsigned long long)key,
					    (unsigned long long)n->key);
		if (kind == TE_HK_COND && !n->tp->is_wakeup)
			return pp_wire_fail(r, PP_EBAD_RECORD, "head of key %llu: an undecided "
					    "event that is no wakeup", (unsigned long long)key);
	}
	return pp_wire_ok(r) ? head_check(te, r, h, key) : r->err;
}

#define EDGE_MAX_CPU 65536u		/* CPUs of a range's running tasks */

/* The running tasks at a range's end: ascending CPUs, each with its task. */
static int read_running(struct pp_wire *r, struct te_edge *e)
{
	size_t nr = pp_wire_count(r, 2, EDGE_MAX_CPU, "running tasks");
	uint32_t prev = 0;

	for (size_t i = 0; i < nr && pp_wire_ok(r); i++) {
		uint32_t cpu = pp_wire_u32(r, "cpu"), pid = pp_wire_u32(r, "pid");
		if (!pp_wire_ok(r))
			break;
		if (cpu >= EDGE_MAX_CPU || (i && cpu <= prev) || pid == TE_NO_PID)
			return pp_wire_fail(r, PP_EBAD_RECORD, "running task %u on cpu %u", pid, cpu);
		e->running = pp_xrealloc(e->running, (cpu + 1) * sizeof(*e->running));
		for (uint32_t c = e->nr_running; c < cpu; c++)
			e->running[c] = TE_NO_PID;
		e->running[cpu] = pid;
		e->nr_running = cpu + 1;
		prev = cpu;
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

int ana_te_edge_read(struct ana_te *te, struct pp_wire *r, struct te_edge *e)
{
	size_t nr;
	uint64_t prev = 0, prev_time = 0;
	int rc;

	e->recent_ns = pp_wire_varint(r);
	uint8_t lost = pp_wire_u8(r);

	if (pp_wire_ok(r) && lost > 1)
		return pp_wire_fail(r, PP_EBAD_RECORD, "lost flag %u", lost);
	e->lost = lost;
	if (e->lost)
		e->lost_ns = pp_wire_varint(r);
	nr = pp_wire_count(r, 3, SIZE_MAX, "losses");
	for (size_t i = 0; i < nr && pp_wire_ok(r); i++) {
		struct pp_lost_ev l = { .time_ns = pp_wire_varint(r) };
		l.cpu = pp_wire_u32(r, "cpu");
		l.count = pp_wire_varint(r);
		if (pp_wire_ok(r) && i && l.time_ns < e->losses[i - 1].time_ns)
			return pp_wire_fail(r, PP_EBAD_RECORD, "losses not in time order");
		loss_push(e, &l);
	}
	nr = pp_wire_count(r, 3, SIZE_MAX, "heads");
	for (size_t i = 0; i < nr && pp_wire_ok(r); i++) {
		uint64_t key = pp_wire_varint(r);
		if (pp_wire_ok(r) && i && key <= prev)
			return pp_wire_fail(r, PP_EBAD_RECORD, "heads not in ascending key order");
		prev = key;
		if ((rc = read_head(te, r, e, key)))
			return rc;
	}
	nr = pp_wire_count(r, 10, SIZE_MAX, "tails");
	for (size_t i = 0; i < nr && pp_wire_ok(r); i++) {
		struct te_node *n = read_node(te, r, "a tail"), *top;
		void **slot;
		if (!n)
			return r->err;
		slot = pp_u64map_slot(&e->tails, n->key);
		top = *slot;
		n->bnext = top;
		*slot = n;
		if (i && (n->key < prev || (n->key == prev && (!te->cfg.nested || !top ||
							       n->ev.time_ns < prev_time))))
			return pp_wire_fail(r, PP_EBAD_RECORD, "tails not by key then time%s",
					    te->cfg.nested ? "" : ", or two of one key");
		prev = n->key;
		prev_time = n->ev.time_ns;
	}
	return pp_wire_ok(r) ? read_running(r, e) : r->err;
}

/* --- joining adjacent ranges, settling at a report --------------------------------- */

/* Hand @n's stack to ->remaining() (@why at @time_ns, as the replay did then) and free it. */
static void stack_drop(struct ana_te *te, struct te_node *n, int why, uint64_t time_ns)
{
	uint64_t recent = te->recent_ns;
	bool more = true;

	te->recent_ns = time_ns;
	for (struct te_node *x = n; x && more; x = x->bnext)
		more = ana_te_remaining(te, x, why);
	te->recent_ns = recent;
	stack_free(te, n);
}

/* The newest node of @stack that head event @cur closes; unlinked. */
static struct te_node *stack_take(struct ana_te *te, struct te_node **stack,
				  const struct te_node *cur)
{
	for (struct te_node **pp = stack; *pp; pp = &(*pp)->bnext) {
		struct te_node *n = *pp;
		if (te->cfg.nested && n->tp != cur->tp->entry)
			continue;
		*pp = n->bnext;
		n->bnext = NULL;
		return n;
	}
	return NULL;
}

/* @top's stack on top of @bottom's. */
static struct te_node *stack_over(struct te_node *top, struct te_node *bottom)
{
	struct te_node **pp = &top;

	while (*pp)
		pp = &(*pp)->bnext;
	*pp = bottom;
	return top;
}

/*
 * What the range before (@a, its running tasks at its end) says of the undecided head
 * wakeup @n, as wakeup_unnecessary() would have: 1 backed up, 0 unnecessary, -1 unknown.
 */
static int cond_decide(const struct te_edge *a, const struct te_node *n)
{
	const struct te_tp *tp = n->tp;
	uint64_t target = tp->f_cpu ? ana_field_read(&n->ev, tp->f_cpu) : 0;
	uint32_t pid = tp->f_pid ? (uint32_t)ana_field_read(&n->ev, tp->f_pid) : 0;

	if (target >= a->nr_running || a->running[target] == TE_NO_PID)
		return -1;
	return a->running[target] != pid;
}

/* Where join_head() is in B's head of a key. */
struct head_walk {
	struct te_node *cur;		/* the key's backup at this point (A's tail at first) */
	bool known;			/* cur is the key's whole state: nothing looks past A */
	bool backed;			/* an entry replaced the key's backup */
	bool deferred;			/* an undecided wakeup: the rest is the range before's */
};

/* Entry @n of B's head (NULL: TE_HK_CLEAR) against @w; what looks further back goes to @left. */
static void walk_entry(struct ana_te *te, const struct te_edge *a, struct head_walk *w,
		       struct te_node *n, struct te_head *left)
{
	int kind = n ? n->hkind : TE_HK_CLEAR, d = kind == TE_HK_COND ? cond_decide(a, n) : 1;
	struct te_node *prev;

	if (!w->deferred && d < 0 && !a->lost && !a->nr_losses) {
		w->deferred = true;	/* after what A left under the key, when A knows it */
		if (w->known || w->cur)
			head_push(left, w->cur);
		if (w->cur)
			w->cur->hkind = TE_HK_SET;
		w->cur = NULL;
	}
	if (w->deferred) {
		head_push(left, n);
		return;
	}
	if (!d) {			/* an unnecessary wakeup: nothing changes */
		ana_te_node_put(te, n);
		return;
	}
	if (kind != TE_HK_LOOK) {	/* one backup per key: it replaces what was there */
		stack_free(te, w->cur);
		w->cur = n;
		if (n)
			n->hkind = TE_HK_LOOK;
		w->known = w->backed = true;
		return;
	}
	if ((prev = stack_take(te, &w->cur, n))) {
		struct te_pair *p = ana_te_pair_find(te, prev->tp, n->tp);
		if (p && prev->ev.time_ns < n->ev.time_ns)
			te->impl->two(te, p, prev, n, NULL);
		ana_te_node_put(te, prev);
		ana_te_node_put(te, n);
	} else if (!w->known || te->cfg.nested) {
		head_push(left, n);	/* looks further back */
	} else {
		ana_te_node_put(te, n);
	}
	if (!te->cfg.nested)
		w->known = true;	/* it removes what it finds */
}

/*
 * B's head of @key against A's tails: the pairs one replay makes there.  The
 * events it leaves unmatched look further back: they go to A's head when A's
 * key is still open to the range before it.  An undecided wakeup A cannot
 * decide goes there with the rest of the head, after what A left under the key
 * (internal.h TE_NO_PID); with @a lost (a report: no range before) it is backed
 * up, as a replay from A's start does.
 */
static void join_head(struct ana_te *te, struct te_edge *a, struct te_edge *b, uint64_t key)
{
	struct te_head *hb = pp_u64map_del(&b->heads, key), *ha = pp_u64map_get(&a->heads, key);
	struct te_node *sb = pp_u64map_del(&b->tails, key);
	bool open_a = ha ? ha->state == TE_HEAD_OPEN : !a->lost;
	struct head_walk w = { pp_u64map_del(&a->tails, key), !open_a, false, false };
	struct te_head left = { 0 };

	if (te->cfg.nested)
		w.known = false;	/* nested heads look through the whole stack */
	for (size_t i = 0; i < hb->nr; i++)
		walk_entry(te, a, &w, hb->ev[i], &left);
	free(hb->ev);
	hb->ev = left.ev;
	hb->nr = left.nr;
	hb->cap = left.cap;
	if (hb->state == TE_HEAD_LOST || hb->state == TE_HEAD_RECLAIM)
		stack_drop(te, w.cur, hb->state == TE_HEAD_LOST ? TE_RR_LOST : TE_RR_RECLAIM,
			   hb->time_ns);
	else if (hb->state == TE_HEAD_CLOSED)
		stack_free(te, w.cur);	/* replaced or taken: nothing is reported */
	else
		sb = stack_over(sb, w.cur);
	if (sb)
		pp_u64map_put(&a->tails, key, sb);
	if (w.backed && !w.deferred)	/* a head's undecided entries come before its close */
		hb->state = TE_HEAD_CLOSED;
	if (!open_a && !w.deferred) {
		head_free(te, hb);
	} else if (!ha) {
		pp_u64map_put(&a->heads, key, hb);
	} else {
		for (size_t i = 0; i < hb->nr; i++)
			head_push(ha, hb->ev[i]);
		hb->nr = 0;
		ha->state = hb->state;
		ha->time_ns = hb->time_ns;
		head_free(te, hb);
	}
}

/* The joined range's running tasks: B's, and A's where B has not named one since a loss. */
static void join_running(struct te_edge *a, const struct te_edge *b)
{
	if (b->nr_losses || b->lost) {
		ana_te_edge_set_running(a, b->running, b->nr_running);
		return;
	}
	if (b->nr_running > a->nr_running) {
		a->running = pp_xrealloc(a->running, b->nr_running * sizeof(*a->running));
		for (uint32_t c = a->nr_running; c < b->nr_running; c++)
			a->running[c] = TE_NO_PID;
		a->nr_running = b->nr_running;
	}
	for (uint32_t c = 0; c < b->nr_running; c++)
		if (b->running[c] != TE_NO_PID)
			a->running[c] = b->running[c];
}

void ana_te_edge_join(struct ana_te *te, struct te_edge *a, struct te_edge *b)
{
	size_t nr;
	uint64_t *keys;

	/* a loss in B dropped what A left under the keys B had not closed */
	if (b->lost) {
		keys = pp_u64map_keys(&a->tails, &nr);
		for (size_t i = 0; i < nr; i++) {
			const struct te_head *hb = pp_u64map_get(&b->heads, keys[i]);
			if (!hb)
				stack_drop(te, pp_u64map_del(&a->tails, keys[i]), TE_RR_LOST,
					   b->lost_ns);
		}
		free(keys);
		keys = pp_u64map_keys(&a->heads, &nr);
		for (size_t i = 0; i < nr; i++) {
			struct te_head *ha = pp_u64map_get(&a->heads, keys[i]);
			if (ha->state == TE_HEAD_OPEN && !pp_u64map_get(&b->heads, keys[i])) {
				ha->state = TE_HEAD_LOST;
				ha->time_ns = b->lost_ns;
			}
		}
		free(keys);
	}
	keys = pp_u64map_keys(&b->heads, &nr);
	for (size_t i = 0; i < nr; i++)
		join_head(te, a, b, keys[i]);
	free(keys);
	join_running(a, b);
	/* B's other tails: keys B opened after a loss, or (nested) on A's stack */
	keys = pp_u64map_keys(&b->tails, &nr);
	for (size_t i = 0; i < nr; i++) {
		struct te_node *sb = pp_u64map_del(&b->tails, keys[i]);
		void **slot = pp_u64map_slot(&a->tails, keys[i]);
		*slot = stack_over(sb, *slot);
	}
	free(keys);
	for (size_t i = 0; i < b->nr_losses; i++)
		loss_push(a, &b->losses[i]);
	if (b->recent_ns > a->recent_ns)
		a->recent_ns = b->recent_ns;
	if (!a->lost && b->lost) {
		a->lost = true;
		a->lost_ns = b->lost_ns;
	}
	ana_te_edge_free(te, b);
}

/* No range before @e: its heads' undecided wakeups are backed up, as a replay from its start. */
static void settle_undecided(struct ana_te *te, struct te_edge *e)
{
	struct te_edge none = { .lost = true };
	size_t nr;
	uint64_t *keys = pp_u64map_keys(&e->heads, &nr);

	for (size_t k = 0; k < nr; k++) {
		const struct te_head *h = pp_u64map_get(&e->heads, keys[k]);
		bool cond = false;
		for (size_t i = 0; i < h->nr && !cond; i++)
			cond = !h->ev[i] || h->ev[i]->hkind != TE_HK_LOOK;
		if (!cond)
			continue;
		join_head(te, &none, e, keys[k]);
		if (pp_u64map_get(&none.tails, keys[k]))
			pp_u64map_put(&e->tails, keys[k], pp_u64map_del(&none.tails, keys[k]));
	}
	free(keys);
	pp_u64map_release(&none.heads);
	pp_u64map_release(&none.tails);
}

void ana_te_edge_settle(struct ana_te *te)
{
	const unsigned *ids;
	size_t n = te->edges.v ? ana_state_sources(te->az, &ids) : 0;
	uint64_t recent = te->recent_ns;

	for (size_t i = 0; i < n; i++) {
		struct te_edge *e = ana_edges_get(&te->edges, ids[i]);
		size_t nr;
		uint64_t *keys;
		bool more = true;

		if (!e)
			continue;
		for (size_t k = 0; k < e->nr_losses; k++)
			ana_te_print_lost(te, &e->losses[k]);
		te->recent_ns = e->recent_ns;
		settle_undecided(te, e);
		keys = pp_u64map_keys(&e->tails, &nr);
		for (size_t k = 0; k < nr; k++) {
			struct te_node *s = pp_u64map_del(&e->tails, keys[k]);
			for (struct te_node *x = s; x && more; x = x->bnext)
				more = ana_te_remaining(te, x, TE_RR_EXIT);
			stack_free(te, s);
		}
		free(keys);
	}
	te->recent_ns = recent;
}
