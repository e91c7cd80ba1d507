/* SPDX-License-Identifier: MIT */
/*
 * drain.h - a thread that empties the perf rings into memory, and nothing else.
 *
 * The kernel drops records when a ring is full, and the process that reads
 * the rings is often woken on the very CPU that writes them, where it
 * competes with the recorded workload.  So the reading is split: this thread
 * only copies ring bytes into chunks (a memcpy per ring per round, so it
 * needs the CPU only briefly) and the main thread decodes, orders, encodes,
 * compresses and writes at its own pace from those chunks.
 * Each round is stamped with its start time: once the main thread has taken
 * the chunks of a round, it has every record stamped before that time.
 * Not here: decoding records (session.c, sideband.c).
 */
#ifndef PP_RECORD_DRAIN_H
#define PP_RECORD_DRAIN_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

/* Ring bytes copied in one round from one ring: whole records. */
struct rec_chunk {
	struct rec_chunk *next;
	uint32_t ring;			/* index of the ring */
	size_t len, cap;
	uint8_t *data;			/* 8-byte aligned */
};

struct rec_drain {
	struct rec_ring *rings;		/* not owned */
	size_t nr_rings;
	struct pollfd *pfds;		/* rings + the wake-up eventfd */
	int wake_fd;			/* eventfd: stop */
	int base_ms;			/* the longest poll timeout */
	size_t max_queued_sz;		/* back-pressure: stop copying beyond this */
	bool realtime;			/* run the thread SCHED_FIFO (set before start) */

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t ready;		/* signalled when chunks are queued */
	struct rec_chunk *head, *tail;	/* queued for the consumer */
	struct rec_chunk *pool;		/* free chunks */
	size_t nr_pool;
	size_t chunk_sz;		/* the largest ring: a chunk holds a whole ring */
	size_t queued_sz;
	uint64_t round_ns;		/* start of the last round whose chunks are queued */
	bool stop;

	/* statistics (read after the thread stopped) */
	uint64_t nr_rounds, nr_deferred;
	size_t max_queued;
	uint64_t max_round_ns;
};

/**
 * rec_drain_init() - prepare a drain over @nr rings (nothing runs yet)
 * @d: zeroed by the caller
 * @rings: the rings; those without a mapping are skipped
 * @nr: their number
 * @base_ms: longest time between two rounds
 * Return: 0 or -errno.
 */
int rec_drain_init(struct rec_drain *d, struct rec_ring *rings, size_t nr, int base_ms);

/** rec_drain_start() - start the thread.  Return: 0 or -errno. */
int rec_drain_start(struct rec_drain *d);

/** rec_drain_stop() - stop the thread and wait for it (no-op if not running). */
void rec_drain_stop(struct rec_drain *d);

/**
 * rec_drain_round() - one round in the calling thread (after rec_drain_stop())
 * @d: the drain
 * @now_ns: the round's start time
 */
void rec_drain_round(struct rec_drain *d, uint64_t now_ns);

/**
 * rec_drain_take() - wait up to @timeout_ms for chunks and take all of them
 * @d: the drain
 * @timeout_ms: how long to wait when none are queued
 * @round_ns: receives the start of the last round the chunks complete
 * Return: the chunks in order (a list), or NULL; give them back with rec_drain_put().
 */
struct rec_chunk *rec_drain_take(struct rec_drain *d, int timeout_ms, uint64_t *round_ns);

/**
 * rec_drain_refill() - top the pool of free chunks up (main thread: the drain
 * thread must not allocate, see drain.c)
 */
void rec_drain_refill(struct rec_drain *d);

/** rec_drain_put() - return a list of chunks to the pool. */
void rec_drain_put(struct rec_drain *d, struct rec_chunk *list);

/** rec_drain_release() - free everything (the thread must be stopped). */
void rec_drain_release(struct rec_drain *d);

#endif
