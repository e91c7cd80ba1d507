/* SPDX-License-Identifier: MIT */
/*
 * merge.h - ordered merge of per-ring record queues with a bounded reorder window.
 *
 * Each ring's records are copied into its own queue.  Records inside one
 * ring are nearly sorted; a queue keeps them sorted with an insertion step
 * from its tail.  A flush pops records across all queues with a min-heap on
 * their front times, up to a horizon (the drain round's start time minus a
 * small window).  A record older than what was already emitted is still
 * emitted, and counted as late.
 * Not here: decoding the records (sideband.c).
 */
#ifndef PP_RECORD_MERGE_H
#define PP_RECORD_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct rec_mchunk;

/* A queued record: this header, then the perf record (8-byte aligned). */
struct rec_mev {
	uint64_t time_ns;
	struct rec_mchunk *chunk;	/* where it is stored */
	uint32_t size;			/* of the perf record that follows */
	int32_t evsel;			/* evsel index for samples, -1 otherwise */
	uint16_t cpu;			/* the ring's CPU (for LOST and sideband) */
	uint16_t pad[3];
};

static inline const struct perf_event_header *rec_mev_rec(const struct rec_mev *e)
{
	return (const struct perf_event_header *)(e + 1);
}

struct rec_mqueue {
	struct rec_mchunk *cur;		/* the chunk being filled */
	struct rec_mev **idx;		/* queued records in time order, a deque */
	size_t idx_cap, idx_head, idx_len;
	uint64_t newest;		/* the latest time pushed so far */
};

struct rec_merge {
	struct rec_mqueue *q;
	size_t nr_q;
	size_t *heap;
	struct rec_mchunk *free;	/* recycled chunks */
	size_t nr_chunks, max_chunks;	/* chunks that exist; high-water mark */
	size_t nr_free;			/* of them on the free list */
	size_t chunk_sz;		/* bytes of records a chunk holds */
	uint64_t last_ns;		/* time of the last record emitted */
	uint64_t nr_late;		/* records pushed with a time < last_ns */
	uint64_t nr_queued;		/* records waiting */
	uint64_t max_queued;		/* high-water mark of nr_queued */
};

/** rec_merge_init() - @nr_q empty queues. */
void rec_merge_init(struct rec_merge *m, size_t nr_q);
/** rec_merge_release() - free the queues (pending records are dropped). */
void rec_merge_release(struct rec_merge *m);

/**
 * rec_merge_push() - queue a copy of perf record @h
 * @m: the merge
 * @qi: the queue (ring) it came from
 * @time_ns: its timestamp
 * @evsel: evsel index for samples, -1 for other records
 * @cpu: the ring's CPU
 * @h: the record; copied
 */
void rec_merge_push(struct rec_merge *m, size_t qi, uint64_t time_ns, int evsel, int cpu,
		    const struct perf_event_header *h);

/* Called for each record in time order; a non-zero return stops the flush. */
typedef int (*rec_merge_emit_fn)(const struct rec_mev *e, void *arg);

/**
 * rec_merge_flush() - emit every queued record with time <= @horizon_ns, in time order
 * Return: 0 or the first non-zero value @emit returned.
 */
int rec_merge_flush(struct rec_merge *m, uint64_t horizon_ns, rec_merge_emit_fn emit, void *arg);

/** rec_merge_chunk_size() - bytes of one storage chunk (for memory accounting). */
size_t rec_merge_chunk_size(const struct rec_merge *m);

/*
 * rec_merge_bound() - size the chunks for a merge meant to hold about @max_bytes:
 * each queue keeps a chunk, so a quarter of it shared by the queues, between 80
 * and 256 KiB a chunk.  Before the first push.
 */
void rec_merge_bound(struct rec_merge *m, size_t max_bytes);

/* rec_merge_bytes() - memory of the chunks holding queued records (not the free ones) */
size_t rec_merge_bytes(const struct rec_merge *m);

#endif
