/* SPDX-License-Identifier: MIT */
/*
 * merge.c - bounded reorder window across the per-CPU rings.
 *
 * Worked example, two rings, window W, rounds at T1 < T2:
 *
 *   ring0: a(1) b(5)        | c(9)            (arrival: a b at T1, c at T2)
 *   ring1:   x(3)     y(7)  |                 (x y at T1)
 *   flush(T1 - W = 6): a x b   (y=7 and later wait for the next round)
 *   flush(T2 - W):     y c
 *
 * Each queue is a FIFO of copied records plus an index of logical offsets
 * kept in time order; since records of one ring are nearly sorted, the
 * insertion step moves an entry at most a few places.  FIFO space is
 * reclaimed up to the oldest unconsumed entry and compacted by memmove when
 * half of the buffer is dead, so the steady state does no allocation.
 * Not here: what the records are.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "merge.h"

void rec_merge_init(struct rec_merge *m, size_t nr_q)
{
	memset(m, 0, sizeof(*m));
	m->q = pp_xcalloc(nr_q ? nr_q : 1, sizeof(*m->q));
	m->heap = pp_xcalloc(nr_q ? nr_q : 1, sizeof(*m->heap));
	m->nr_q = nr_q;
}

void rec_merge_release(struct rec_merge *m)
{
	for (size_t i = 0; i < m->nr_q; i++) {
		free(m->q[i].buf);
		free(m->q[i].idx);
	}
	free(m->q);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

static inline struct rec_mev *q_ent(const struct rec_mqueue *q, uint64_t lo)
{
	return (struct rec_mev *)(q->buf + (lo - q->base));
}

static void q_reserve(struct rec_mqueue *q, size_t need)
{
	size_t live = (size_t)(q->end - q->head);

	if ((size_t)(q->end - q->base) + need <= q->cap)
		return;
	/* drop the dead prefix first; grow only when the live part needs it */
	if (q->head > q->base) {
		memmove(q->buf, q->buf + (q->head - q->base), live);
		q->base = q->head;
	}
	if (live + need > q->cap) {
		size_t cap = q->cap ? q->cap : 1 << 16;

		while (live + need > cap)
			cap *= 2;
		q->buf = pp_xrealloc(q->buf, cap);
		q->cap = cap;
	}
}

static void q_idx_reserve(struct rec_mqueue *q)
{
	if (q->idx_head + q->idx_len < q->idx_cap)
		return;
	if (q->idx_head > q->idx_cap / 2) {
		memmove(q->idx, q->idx + q->idx_head, q->idx_len * sizeof(*q->idx));
		q->idx_head = 0;
		return;
	}
	q->idx_cap = q->idx_cap ? q->idx_cap * 2 : 1024;
	q->idx = pp_xrealloc(q->idx, q->idx_cap * sizeof(*q->idx));
}

void rec_merge_push(struct rec_merge *m, size_t qi, uint64_t time_ns, int evsel, int cpu,
		    const struct perf_event_header *h)
{
	struct rec_mqueue *q = &m->q[qi];
	size_t need = sizeof(struct rec_mev) + ((h->size + 7u) & ~7u);
	uint64_t lo = q->end;
	struct rec_mev *e;
	uint64_t *ix;
	size_t pos;

	q_reserve(q, need);
	e = q_ent(q, lo);
	e->time_ns = time_ns;
	e->size = h->size;
	e->consumed = 0;
	e->cpu = (uint16_t)cpu;
	e->evsel = evsel;
	e->pad = 0;
	memcpy(e + 1, h, h->size);
	q->end += need;

	if (time_ns < m->last_ns)
		m->nr_late++;

	q_idx_reserve(q);
	ix = q->idx + q->idx_head;
	pos = q->idx_len;
	while (pos > 0 && q_ent(q, ix[pos - 1])->time_ns > time_ns) {
		ix[pos] = ix[pos - 1];
		pos--;
	}
	ix[pos] = lo;
	q->idx_len++;
	if (++m->nr_queued > m->max_queued)
		m->max_queued = m->nr_queued;
}

static inline uint64_t q_front_time(const struct rec_mqueue *q)
{
	return q_ent(q, q->idx[q->idx_head])->time_ns;
}

static void q_pop(struct rec_mqueue *q)
{
	struct rec_mev *e = q_ent(q, q->idx[q->idx_head]);

	e->consumed = 1;
	q->idx_head++;
	q->idx_len--;
	if (!q->idx_len) {
		q->idx_head = 0;
		q->head = q->end;
		q->base = q->end;	/* everything is dead: restart at buf[0] */
		return;
	}
	while (q->head < q->end) {
		struct rec_mev *h = q_ent(q, q->head);

		if (!h->consumed)
			break;
		q->head += sizeof(*h) + ((h->size + 7u) & ~7u);
	}
}

static void heap_down(struct rec_merge *m, size_t n, size_t i)
{
	size_t *hp = m->heap;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;

		if (l < n && q_front_time(&m->q[hp[l]]) < q_front_time(&m->q[hp[s]]))
			s = l;
		if (r < n && q_front_time(&m->q[hp[r]]) < q_front_time(&m->q[hp[s]]))
			s = r;
		if (s == i)
			return;
		size_t t = hp[i];
		hp[i] = hp[s];
		hp[s] = t;
		i = s;
	}
}

int rec_merge_flush(struct rec_merge *m, uint64_t horizon_ns, rec_merge_emit_fn emit, void *arg)
{
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < m->nr_q; i++)
		if (m->q[i].idx_len)
			m->heap[n++] = i;
	for (size_t i = n / 2; i-- > 0;)
		heap_down(m, n, i);
	while (n) {
		struct rec_mqueue *q = &m->q[m->heap[0]];
		struct rec_mev *e = q_ent(q, q->idx[q->idx_head]);

		if (e->time_ns > horizon_ns)
			break;
		rc = emit(e, arg);
		if (e->time_ns > m->last_ns)
			m->last_ns = e->time_ns;
		q_pop(q);
		m->nr_queued--;
		if (rc)
			break;
		if (!q->idx_len)
			m->heap[0] = m->heap[--n];
		heap_down(m, n, 0);
	}
	return rc;
}
