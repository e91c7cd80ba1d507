/* SPDX-License-Identifier: MIT */
/*
 * segq.h - a capture handed from a writer to a reader in memory, a few segments at a time.
 *
 * A writer opened on ppf_segq_sink() (ppf_writer_open_cb(), with opts.in_memory: segments
 * stored raw, no payload checksum) fills a bounded queue of segments from one thread; a
 * reader opened on the queue (ppf_reader_open_segq()) takes them from another and decodes
 * each where it lies, as it would a file's after decompressing it.  Nothing is compressed,
 * checksummed, written or read back, and at most @depth segments are in memory at once:
 * the writer waits while the queue is full, the reader while it is empty.  The bytes are
 * those of docs/capture-format.md (the file header, segment headers and raw payloads, the
 * trailer), never a file.
 * Not here: who runs the writer (analyze/import/import.c), reading records (reader.c).
 */
#ifndef PP_FORMAT_SEGQ_H
#define PP_FORMAT_SEGQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ppf_segq;

/* One piece of the capture in the queue: a struct ppf_chunk's bytes, owned by the queue. */
struct ppf_segq_item {
	enum ppf_chunk_kind what;
	uint8_t head[PPF_SEG_HDR_SZ];	/* the file header, a segment header or the trailer */
	size_t head_sz;
	uint8_t *body;			/* PPF_CHUNK_SEGMENT: its payload */
	size_t body_sz, body_cap;
	bool lent;			/* @body is lent (ppf_segq_push_lent()), not owned */
};

/**
 * ppf_segq_new() - a queue of at most @depth pieces (at least 2), with two references:
 * the writer's side and the reader's, each given back by ppf_segq_unref()
 * Return: 0 or -ENOMEM.
 */
int ppf_segq_new(unsigned depth, struct ppf_segq **out) PP_MUST_CHECK;

/**
 * ppf_segq_sink() - the writer's sink (ppf_sink_fn, @arg the queue): a copy of @c into
 * the queue, waiting for room; once the reader has left (ppf_segq_abandon()) nothing is
 * kept, and the writer goes on to its end as if read (what it says at the end, it says).
 * Return: 0 or -ENOMEM.
 */
int ppf_segq_sink(void *arg, const struct ppf_chunk *c);

/**
 * ppf_segq_close() - the writer's side is done: @err 0 when the capture is whole (its
 * trailer queued), else the negative code the reader gets after the last piece, with
 * @msg (may be NULL) as its message
 */
void ppf_segq_close(struct ppf_segq *q, int err, const char *msg);

/**
 * ppf_segq_wait_segment() - wait until a segment is queued or the writer's side is closed
 * Return: 0 (a segment, or a clean close), or the close's error.
 */
int ppf_segq_wait_segment(struct ppf_segq *q);

/**
 * ppf_segq_pop() - the reader's next piece, waiting for it; it stays the reader's (the
 * writer does not reuse its memory) until ppf_segq_release()
 * Return: 0 with *@it, PPF_END after the last piece of a clean close, or the close's
 * error (message in @msg, @msgsz bytes).
 */
int ppf_segq_pop(struct ppf_segq *q, struct ppf_segq_item **it, char *msg, size_t msgsz);

/** ppf_segq_release() - give back the piece ppf_segq_pop() gave */
void ppf_segq_release(struct ppf_segq *q);

/** ppf_segq_abandon() - the reader takes no more: the writer's pieces are dropped */
void ppf_segq_abandon(struct ppf_segq *q);

/**
 * ppf_segq_push_lent() - queue a piece whose payload stays where it is: @body (@body_sz
 * bytes, writable: the reader decodes in place) is neither copied nor freed, and is the
 * reader's until it gives the piece back (ppf_segq_on_release()'s hook says when).  For a
 * writer in another process (analyze/import/impchild.c).  Waits for room as
 * ppf_segq_sink() does.
 * Return: 0, 1 when the reader has left (nothing queued), or -EINVAL (@head_sz too big).
 */
int ppf_segq_push_lent(struct ppf_segq *q, enum ppf_chunk_kind what, const void *head,
		       size_t head_sz, void *body, size_t body_sz);

/**
 * ppf_segq_on_release() - call @fn(@arg, false) each time the reader gives a piece back,
 * after it is counted free, and @fn(@arg, true) once when the reader leaves
 * (ppf_segq_abandon()); from the reader's thread, outside the queue's lock.  Set before
 * the reader starts.
 */
void ppf_segq_on_release(struct ppf_segq *q, void (*fn)(void *arg, bool left), void *arg);

/** ppf_segq_unref() - drop one side's reference; the last frees the queue.  NULL is fine. */
void ppf_segq_unref(struct ppf_segq *q);

/**
 * ppf_reader_open_segq() - a reader of the capture @q carries (see above); it takes over the
 * reader's reference to @q (ppf_reader_close() abandons and drops it).  It cannot seek or
 * rewind, and has no index.  Waits for the file header.
 * Return: as ppf_reader_open().
 */
int ppf_reader_open_segq(struct ppf_segq *q, unsigned flags, struct ppf_reader **out) PP_MUST_CHECK;

#endif
