/* SPDX-License-Identifier: MIT */
/*
 * task-state-merge.c - task-state's mergeable state (docs/state-format.md "task-state").
 *
 * The histograms, and for each capture range its edges - per task, the first
 * events whose stays depend on the state the task had before the range (its
 * "head", replayed once that state is known: from the previous range when two
 * ranges of one capture are joined, else from nothing, as a replay starts) and
 * the state each task ends the range in.  A --state-out replay notes its heads
 * here; their replay goes through task-state.c's state machine.
 * Not here: the state machine and the report (task-state.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/task-state-internal.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/wire.h"

/* --- edges of a range (state) ------------------------------------------------------ */

struct ts_edge *az_task_state_edge_get(struct ts_priv *p, unsigned id)
{
	void **slot = pp_u64map_slot(&p->edges, id);

	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct ts_edge));
	return *slot;
}

void az_task_state_edge_free(struct ts_edge *e)
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
bool az_task_state_head_note(struct pp_az *az, uint32_t tid, enum ts_hkind kind, uint64_t t,
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
	e = az_task_state_edge_get(p, 0);
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
		az_task_state_switch_out(az, &ev, tid, x->prev_state);
		break;
	case TSH_IN:
		az_task_state_switch_in(az, &ev, tid);
		break;
	case TSH_WAKEUP:
	case TSH_WAKEUP_NEW:
		az_task_state_wakeup(az, &ev, tid, x->kind == TSH_WAKEUP_NEW);
		break;
	default:
		az_task_state_task_drop(az->priv, tid);
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

	az_task_state_task_drop(p, tid);
	if (from) {
		t = az_task_state_task_get(p, tid, true);
		t->known = true;
		t->oncpu = from->oncpu;
		t->state = from->state;
		t->time_ns = from->time_ns;
	}
	for (size_t i = 0; i < h->nr; i++)
		ts_head_apply(az, tid, &h->ev[i]);
	t = az_task_state_task_get(p, tid, false);
	known = t && t->known;
	if (known)
		*out = (struct ts_tail){ t->oncpu, t->state, t->time_ns };
	az_task_state_task_drop(p, tid);
	return known;
}

/*
 * Sources @a_id and @b_id are ranges of one capture, @b right after @a: B's heads
 * meet A's tails.  A head whose task A knew at its end is replayed from that state;
 * one A left open (A only saw it woken) grows by B's; one A never saw stays a head.
 */
void az_task_state_state_join(struct pp_az *az, unsigned a_id, unsigned b_id)
{
	struct ts_priv *p = az->priv;
	struct ts_edge *a = az_task_state_edge_get(p, a_id), *b = pp_u64map_del(&p->edges, b_id);
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
	az_task_state_edge_free(b);
}

/* Before a report of states: every head from nothing, as a replay of its range starts. */
void az_task_state_resolve_heads(struct pp_az *az)
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
		az_task_state_edge_free(e);
	}
	free(ids);
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

int az_task_state_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct ts_priv *p = az->priv;
	const unsigned *ids;
	size_t nr = ana_state_sources(az, &ids);

	if (p->nr_stats)
		qsort(p->stats, p->nr_stats, sizeof(*p->stats), az_task_state_cmp_stat);
	pp_wire_put_varint(out, p->nr_stats);
	for (size_t i = 0; i < p->nr_stats; i++) {
		pp_wire_put_varint(out, p->stats[i]->tid);
		pp_wire_put_u8(out, (uint8_t)p->stats[i]->key);
		pp_wire_put_hist(out, &p->stats[i]->h);
	}
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++)
		ts_put_edge(az, az_task_state_edge_get(p, ids[i]), out);
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

int az_task_state_state_read(struct pp_az *az, struct pp_wire *in)
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
			pp_hist_merge(&az_task_state_stat_get(p, tid, key)->h, &h);
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
