/* SPDX-License-Identifier: MIT */
/*
 * drain.h - a thread that empties the perf rings into memory, and nothing else.
 *
 * The kernel drops records when a ring is full, and the process that reads
 * the rings is often woken on the very CPU that writes them, where it
 * competes with the recorded workload.  So the reading is split: this thread
 * only copies ring records into a larger per-ring FIFO in our memory (a
 * memcpy per ring per round, so it needs the CPU only briefly) and the main
 * thread decodes, orders, encodes, compresses and writes at its own pace.
 * Each round is stamped with its start time: once the main thread has taken
 * what a round copied, it has every record stamped before that time.
 * Not here: decoding records (session.c, sideband.c).
 */
#ifndef PP_RECORD_DRAIN_H
#define PP_RECORD_DRAIN_H

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/ring/ring.h"
#include "record/ring/spill.h"

/* A FIFO record that only says "skip": u64 bytes to skip follow, or 8 when size is 8. */
#define REC_FIFO_SKIP 0xffffu
/*
 * A FIFO record closing a round that emptied this ring: u64 round start
 * follows.  Every record of the ring stamped before it came earlier in the
 * FIFO, so a consumer that stops halfway through a backlog still knows how
 * far in time it has got on this ring.
 */
#define REC_FIFO_ROUND 0xfffdu

/*
 * One ring's FIFO: single producer (the drain thread), single consumer (the
 * main thread).  Positions only grow; a record may wrap around the end.
 */
struct rec_fifo {
	uint8_t *buf;			/* populated ahead of wpos: the drain thread never faults */
	size_t size;			/* a power of 2 */
	uint64_t wpos;			/* written up to (drain thread, atomic) */
	uint64_t rpos;			/* consumed up to (main thread, atomic) */
	uint8_t *bounce;		/* consumer: one record that wraps */
	size_t populated;		/* bytes of buf faulted in, from its start */
	size_t ahead;			/* how far ahead of wpos to populate */
	size_t reset_at;		/* back to the start when empty beyond this offset */
	uint64_t nr_resets;
	uint64_t skip_at;		/* drain thread: where the last skip record starts */
	size_t skip_sz;			/* ... and its size (0: none yet) */
	unsigned nr_populate_errors;
	size_t max_used;		/* high-water mark of wpos - rpos */
	uint64_t sp_done;		/* consumer: bytes of the spill marker at rpos handed over */
	uint64_t round_seen;		/* consumer: the last REC_FIFO_ROUND's time */
};

struct rec_drain {
	struct rec_ring *rings;		/* not owned */
	struct rec_fifo *fifos;		/* one per ring */
	size_t nr_rings;
	struct pollfd *pfds;		/* rings, the wake-up eventfd, tracefs files */
	int wake_fd;			/* eventfd: stop */
	int base_ms;			/* the longest poll timeout */
	bool realtime;			/* run the thread SCHED_FIFO (set before start) */
	pid_t boost_tid;		/* the consumer thread, raised while it lags (0: none) */
	bool boosted;			/* drain thread: boost_tid runs at nice -10 */
	uint64_t nr_boosts;

	/* tracefs trace_pipe_raw per ring (ftrace.h): pages go into the ring's FIFO */
	const int *tp_fds;		/* per ring, -1 for none; NULL: no tracefs source */
	size_t tp_page;			/* bytes of one page */
	size_t tp_buf_sz;		/* bytes of one CPU's tracefs buffer */
	uint8_t *tp_stage;		/* one page per ring, read() lands here first */
	size_t *tp_last;		/* bytes taken from each in the last round */
	bool *tp_more;			/* the last round left pages behind (FIFO full) */
	const int64_t *tp_off;		/* CLOCK_MONOTONIC - page clock (NULL: 0), atomic */
	uint64_t nr_tp_pages, nr_tp_errors;

	/* full tracefs pages go to a file instead (spill.h), when set up */
	struct rec_spill spill;
	bool idle_consumer;		/* boost_tid runs SCHED_IDLE unless raised */
	bool consumer_idle;		/* ... and does now */
	const volatile sig_atomic_t *urgent;	/* set: raise the consumer now (a stop signal) */
	bool idle_armed;		/* atomic: the recording runs (rec_drain_idle_from()) */
	uint64_t stop_at_ns;		/* atomic: CLOCK_MONOTONIC of the --duration stop, 0 none */
	uint64_t nr_spill_bad;		/* consumer: pages read back that were not pages */
	uint64_t spill_lost;		/* consumer: bytes of pages that could not be read back */

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;		/* round_ns, stop, the condition */
	pthread_cond_t ready;		/* signalled after each round */
	uint64_t round_ns;		/* start of the last round that emptied every ring */
	uint64_t seq;			/* rounds published */
	uint64_t seq_seen;		/* consumer: seq at its last call */
	bool stop;

	/* statistics (read after the thread stopped) */
	uint64_t nr_rounds, nr_full;	/* rounds; rings left partly because a FIFO was full */
	uint64_t nr_bad;		/* FIFO bytes dropped as not records (internal error) */
	uint64_t max_round_ns;		/* longest round */
	uint64_t max_gap_ns;		/* longest time between two rounds */
	uint64_t cpu_ns;		/* the thread's own CPU time */
};

/**
 * rec_drain_init() - prepare a drain over @nr rings (nothing runs yet)
 * @d: zeroed by the caller
 * @rings: the rings; those without a mapping are skipped
 * @nr: their number
 * @fifo_sz: bytes of FIFO per ring (rounded up to a power of 2)
 * @ahead: how far ahead of the drain thread the FIFO's pages are populated,
 *         at most what one round may copy into it; 0: two rings' worth
 * @base_ms: longest time between two rounds
 * Return: 0 or -errno (-ENOMEM when the FIFOs cannot be mapped).
 */
int rec_drain_init(struct rec_drain *d, struct rec_ring *rings, size_t nr, size_t fifo_sz,
		   size_t ahead, int base_ms);

/**
 * rec_drain_set_tp() - also read tracefs pages, one file per ring (before the start)
 * @d: the drain
 * @fds: per ring, a non-blocking trace_pipe_raw fd or -1 (borrowed)
 * @page: bytes of one page
 * @buf_sz: bytes of one CPU's buffer (paces the rounds)
 *
 * Each page becomes a REC_SYNTH_FTRACE_PAGE record in the ring's FIFO.
 */
void rec_drain_set_tp(struct rec_drain *d, const int *fds, size_t page, size_t buf_sz);

/**
 * rec_drain_set_spill() - splice full tracefs pages into a file in @dir (after
 * rec_drain_set_tp(), before the start; see spill.h)
 * @d: the drain
 * @dir: the directory
 * @max_backlog: bytes spilled and not read back at most
 *
 * The consumer (boost_tid) is then put at SCHED_IDLE once the recording runs
 * (rec_drain_idle_from()), raised while the spill or a FIFO lags or the stop
 * is near, and back to normal at the stop.
 * Return: 0, or -errno when the file cannot be made (the drain reads pages
 * into memory then, as without a spill).
 */
int rec_drain_set_spill(struct rec_drain *d, const char *dir, uint64_t max_backlog);

/** rec_drain_start() - start the thread.  Return: 0 or -errno. */
int rec_drain_start(struct rec_drain *d);

/**
 * rec_drain_idle_from() - the recording proper runs: the consumer may go to SCHED_IDLE
 * @d: the drain (started)
 * @stop_at_ns: CLOCK_MONOTONIC time of the planned stop (--duration), 0 for none
 *
 * Until this call the consumer stays at normal priority: the start (the /proc
 * snapshot) is what the user waits for, and on a machine whose CPUs are all busy a
 * SCHED_IDLE thread gets a fraction of a percent of one (a 1.5 s recording beside a
 * hog on each CPU took 30 s).  From @stop_at_ns on, the drain thread raises the
 * consumer, as a stop signal does, so the stop is on time.
 */
void rec_drain_idle_from(struct rec_drain *d, uint64_t stop_at_ns);

/** rec_drain_stop() - stop the thread and wait for it (no-op if not running). */
void rec_drain_stop(struct rec_drain *d);

/**
 * rec_drain_round() - one round in the calling thread (only while the thread is stopped)
 * @d: the drain
 * @now_ns: the round's start time
 */
void rec_drain_round(struct rec_drain *d, uint64_t now_ns);

/**
 * rec_drain_fill_pct() - how full the fullest FIFO is with records, in percent
 * (the drain thread's view; an unread skip record is not counted: it is free space
 * the consumer has not stepped over yet)
 */
unsigned rec_drain_fill_pct(const struct rec_drain *d);

/**
 * rec_drain_pending() - whether a ring still holds records (only while the thread is stopped)
 */
bool rec_drain_pending(const struct rec_drain *d);

/* Called with each record taken; borrowed for the call. */
typedef void (*rec_drain_rec_fn)(size_t ring, const struct perf_event_header *h, void *arg);

/**
 * rec_drain_consume() - hand the records copied so far to @fn, ring by ring
 * @d: the drain
 * @timeout_ms: when no round happened since the last call, wait this long for one
 * @budget: at most about this many bytes per ring (0: no limit)
 * @hold: rings to leave alone this time (NULL: none)
 * @fn: the callback
 * @arg: its argument
 * @round_ns: receives the last round that emptied every ring: the records
 *            of the rings without records left (rec_drain_left()) stamped
 *            before it have all been handed over; a ring with records left
 *            has handed over those before its last round mark (round_seen)
 * @more: set when the budget or @hold left records behind
 *
 * Return: the number of bytes consumed.
 */
size_t rec_drain_consume(struct rec_drain *d, int timeout_ms, size_t budget, const bool *hold,
			 rec_drain_rec_fn fn, void *arg, uint64_t *round_ns, bool *more);

/** rec_drain_left() - ring @i's FIFO still holds records the consumer has not taken */
bool rec_drain_left(const struct rec_drain *d, size_t i);

/** rec_drain_release() - free everything (the thread must be stopped). */
void rec_drain_release(struct rec_drain *d);

#endif
