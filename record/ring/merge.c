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
 * Records are copied into 256 KiB chunks appended per queue; a chunk counts
 * its live records and goes back to a free list when the last one is
 * emitted, so one record that waits long pins one chunk, not the queue.
 * Each queue keeps an index of its records in time order; since records of
 * one ring are nearly sorted, the insertion step moves an entry at most a
 * few places.  In the steady state nothing is allocated.
 * Not here: what the records are.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "record/ring/merge.h"

#define MCHUNK_SZ (256u << 10)
#define MCHUNK_MIN (80u << 10)	/* a record (64 KiB at most) and its entry fit */

struct rec_mchunk {
	struct rec_mchunk *next;	/* free list */
	size_t used;
	size_t live;			/* records stored here not yet emitted */
	uint8_t data[] __attribute__((aligned(8)));
};

size_t rec_merge_chunk_size(const struct rec_merge *m)
{
	return m->chunk_sz;
}

void rec_merge_bound(struct rec_merge *m, size_t max_bytes)
{
	size_t sz = max_bytes / (4 * (m->nr_q ? m->nr_q : 1));

	sz = sz < MCHUNK_MIN ? MCHUNK_MIN : sz > MCHUNK_SZ ? MCHUNK_SZ : sz;
	m->chunk_sz = sz & ~(size_t)7;
}

void rec_merge_init(struct rec_merge *m, size_t nr_q)
{
	memset(m, 0, sizeof(*m));
	m->q = pp_xcalloc(nr_q ? nr_q : 1, sizeof(*m->q));
	m->heap = pp_xcalloc(nr_q ? nr_q : 1, sizeof(*m->heap));
	m->nr_q = nr_q;
	m->chunk_sz = MCHUNK_SZ;
}

void rec_merge_release(struct rec_merge *m)
{
	struct rec_mchunk *c, *n;

	for (size_t i = 0; i < m->nr_q; i++) {
		struct rec_mqueue *q = &m->q[i];

		/* chunks still holding queued records, then the current ones */
		for (size_t k = 0; k < q->idx_len; k++) {
			c = q->idx[q->idx_head + k]->chunk;
			if (c && c != q->cur && !--c->live) {
				c->next = m->free;
				m->free = c;
			}
		}
		if (q->cur) {
			q->cur->next = m->free;
			m->free = q->cur;
		}
		free(q->idx);
	}
	for (c = m->free; c; c = n) {
		n = c->next;
		free(c);
	}
	free(m->q);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

static struct rec_mchunk *chunk_get(struct rec_merge *m)
{
	struct rec_mchunk *c = m->free;

	if (c) {
		m->free = c->next;
		m->nr_free--;
	} else {
		c = pp_xmalloc(sizeof(*c) + m->chunk_sz);
		if (++m->nr_chunks > m->max_chunks)
			m->max_chunks = m->nr_chunks;
	}
	c->next = NULL;
	c->used = 0;
	c->live = 0;
	return c;
}

static void chunk_put(struct rec_merge *m, struct rec_mchunk *c)
{
	c->next = m->free;
	m->free = c;
	m->nr_free++;
}

size_t rec_merge_bytes(const struct rec_merge *m)
{
	return (m->nr_chunks - m->nr_free) * m->chunk_sz;
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
	struct rec_mev *e, **ix;
	size_t pos;

	if (!q->cur || q->cur->used + need > m->chunk_sz) {
		/* the full chunk lives on while it holds records */
		if (q->cur && !q->cur->live)
			chunk_put(m, q->cur);
		q->cur = chunk_get(m);
	}
	e = (struct rec_mev *)(q->cur->data + q->cur->used);
	q->cur->used += need;
	q->cur->live++;
	e->time_ns = time_ns;
	if (time_ns > q->newest)
		q->newest = time_ns;
	e->chunk = q->cur;
	e->size = h->size;
	e->evsel = evsel;
	e->cpu = (uint16_t)cpu;
	memcpy(e + 1, h, h->size);

	if (time_ns < m->last_ns)
		m->nr_late++;

	q_idx_reserve(q);
	ix = q->idx + q->idx_head;
	pos = q->idx_len;
	while (pos > 0 && ix[pos - 1]->time_ns > time_ns) {
		ix[pos] = ix[pos - 1];
		pos--;
	}
	ix[pos] = e;
	q->idx_len++;
	if (++m->nr_queued > m->max_queued)
		m->max_queued = m->nr_queued;
}

static inline uint64_t q_front_time(const struct rec_mqueue *q)
{
	return q->idx[q->idx_head]->time_ns;
}

static void q_pop(struct rec_merge *m, struct rec_mqueue *q)
{
	struct rec_mchunk *c = q->idx[q->idx_head]->chunk;

	q->idx_head++;
	if (!--q->idx_len)
		q->idx_head = 0;
	if (!--c->live) {
		if (c != q->cur)
			chunk_put(m, c);
		else
			c->used = 0;	/* empty: refill it from the start */
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
		struct rec_mev *e = q->idx[q->idx_head];

		if (e->time_ns > horizon_ns)
			break;
		rc = emit(e, arg);
		if (e->time_ns > m->last_ns)
			m->last_ns = e->time_ns;
		q_pop(m, q);
		m->nr_queued--;
		if (rc)
			break;
		if (!q->idx_len)
			m->heap[0] = m->heap[--n];
		heap_down(m, n, 0);
	}
	return rc;
}
