/* SPDX-License-Identifier: MIT */
/*
 * segq.c - the queue of segments between a writer and a reader in one process (segq.h).
 *
 * A ring of @depth pieces under one lock: the writer copies a chunk into the slot after the
 * last (its buffer kept from the piece it held before, so a steady run allocates nothing),
 * the reader holds the first from ppf_segq_pop() to ppf_segq_release() and decodes it in
 * place.  Each side waits on its own condition: room for the writer, a piece or the close
 * for the reader.  A piece may also be lent (ppf_segq_push_lent()): its payload is another
 * process's shared memory, forgotten (not freed) when the slot is reused, and the hook set
 * by ppf_segq_on_release() tells the lender when the reader is done with it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/segq.h"

struct ppf_segq {
	pthread_mutex_t lock;
	pthread_cond_t room, ready;
	struct ppf_segq_item *slots;
	unsigned depth;
	unsigned head, count;		/* slots[head] first; count queued (the reader's included) */
	bool held;			/* the reader holds slots[head] */
	bool segment;			/* a segment was queued */
	bool closed, abandoned;
	int err;			/* ppf_segq_close()'s */
	char msg[256];
	unsigned refs;
	void (*on_release)(void *arg, bool left);	/* ppf_segq_on_release()'s */
	void *on_release_arg;
};

int ppf_segq_new(unsigned depth, struct ppf_segq **out)
{
	struct ppf_segq *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (depth < 2)
		depth = 2;
	if (!q || !(q->slots = calloc(depth, sizeof(*q->slots)))) {
		free(q);
		return -ENOMEM;
	}
	q->depth = depth;
	q->refs = 2;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->ready, NULL);
	*out = q;
	return 0;
}

/* The slot after the last, once there is room; NULL once the reader has left. */
static struct ppf_segq_item *next_slot(struct ppf_segq *q)
{
	struct ppf_segq_item *it = NULL;

	pthread_mutex_lock(&q->lock);
	while (q->count == q->depth && !q->abandoned)
		pthread_cond_wait(&q->room, &q->lock);
	if (!q->abandoned)
		it = &q->slots[(q->head + q->count) % q->depth];
	pthread_mutex_unlock(&q->lock);
	return it;
}

/* The slot next_slot() gave, filled: counted in, the reader woken. */
static void count_in(struct ppf_segq *q, enum ppf_chunk_kind what)
{
	pthread_mutex_lock(&q->lock);
	q->count++;
	q->segment |= what == PPF_CHUNK_SEGMENT;
	pthread_cond_signal(&q->ready);
	pthread_mutex_unlock(&q->lock);
}

int ppf_segq_sink(void *arg, const struct ppf_chunk *c)
{
	struct ppf_segq *q = arg;
	struct ppf_segq_item *it;

	if (c->head_sz > sizeof(it->head))
		return -EINVAL;
	it = next_slot(q);
	if (!it)
		return 0;	/* dropped: the writer goes on to its end (segq.h) */
	/* the slot is the writer's until it is counted in: filled outside the lock */
	if (it->lent) {		/* not ours: forgotten, not freed */
		it->body = NULL;
		it->body_cap = 0;
		it->lent = false;
	}
	if (c->swap_buf) {
		/* the payload's buffer is taken, the slot's old one left in its place */
		void *b = it->body;
		size_t cap = it->body_cap;

		it->body = *c->swap_buf;
		it->body_cap = *c->swap_cap;
		*c->swap_buf = b;
		*c->swap_cap = cap;
	} else if (c->body_sz > it->body_cap) {
		uint8_t *b = realloc(it->body, c->body_sz);

		if (!b)
			return -ENOMEM;
		it->body = b;
		it->body_cap = c->body_sz;
	}
	it->what = c->what;
	memcpy(it->head, c->head, c->head_sz);
	it->head_sz = c->head_sz;
	if (c->body_sz && !c->swap_buf)
		memcpy(it->body, c->body, c->body_sz);
	it->body_sz = c->body_sz;
	count_in(q, c->what);
	return 0;
}

int ppf_segq_push_lent(struct ppf_segq *q, enum ppf_chunk_kind what, const void *head,
		       size_t head_sz, void *body, size_t body_sz)
{
	struct ppf_segq_item *it;

	if (head_sz > sizeof(it->head))
		return -EINVAL;
	it = next_slot(q);
	if (!it)
		return 1;
	if (!it->lent)
		free(it->body);
	it->what = what;
	memcpy(it->head, head, head_sz);
	it->head_sz = head_sz;
	it->body = body;
	it->body_sz = body_sz;
	it->body_cap = 0;
	it->lent = true;
	count_in(q, what);
	return 0;
}

void ppf_segq_on_release(struct ppf_segq *q, void (*fn)(void *arg, bool left), void *arg)
{
	q->on_release = fn;
	q->on_release_arg = arg;
}

void ppf_segq_close(struct ppf_segq *q, int err, const char *msg)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	q->err = err;
	if (msg)
		snprintf(q->msg, sizeof(q->msg), "%s", msg);
	pthread_cond_broadcast(&q->ready);
	pthread_mutex_unlock(&q->lock);
}

int ppf_segq_wait_segment(struct ppf_segq *q)
{
	int rc;

	pthread_mutex_lock(&q->lock);
	while (!q->segment && !q->closed)
		pthread_cond_wait(&q->ready, &q->lock);
	rc = q->segment ? 0 : q->err;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int ppf_segq_pop(struct ppf_segq *q, struct ppf_segq_item **it, char *msg, size_t msgsz)
{
	int rc = 0;

	*it = NULL;
	pthread_mutex_lock(&q->lock);
	while (q->count == q->held && !q->closed)
		pthread_cond_wait(&q->ready, &q->lock);
	if (q->held) {
		rc = -EINVAL;	/* the last one not given back */
	} else if (q->count) {
		q->held = true;
		*it = &q->slots[q->head];
	} else {
		rc = q->err ? q->err : PPF_END;
		if (q->err && msg)
			snprintf(msg, msgsz, "%s", q->msg[0] ? q->msg : pp_strerror(q->err));
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void ppf_segq_release(struct ppf_segq *q)
{
	bool was = false;

	pthread_mutex_lock(&q->lock);
	if (q->held) {
		q->held = false;
		q->head = (q->head + 1) % q->depth;
		q->count--;
		was = true;
		pthread_cond_signal(&q->room);
	}
	pthread_mutex_unlock(&q->lock);
	if (was && q->on_release)
		q->on_release(q->on_release_arg, false);
}

void ppf_segq_abandon(struct ppf_segq *q)
{
	bool first;

	pthread_mutex_lock(&q->lock);
	first = !q->abandoned;
	q->abandoned = true;
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	if (first && q->on_release)
		q->on_release(q->on_release_arg, true);
}

void ppf_segq_unref(struct ppf_segq *q)
{
	unsigned left;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	left = --q->refs;
	pthread_mutex_unlock(&q->lock);
	if (left)
		return;
	for (unsigned i = 0; i < q->depth; i++)
		if (!q->slots[i].lent)
			free(q->slots[i].body);
	free(q->slots);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->ready);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
