/* SPDX-License-Identifier: MIT */
/*
 * clocksync.h - the tracefs "local" clock mapped to CLOCK_MONOTONIC.
 *
 * Captures are on CLOCK_MONOTONIC.  A tracefs instance could stamp its
 * events with that clock ("mono"), but on a VM whose TSC is marked unstable
 * that is a kvm-clock read through the timekeeper at every event: a
 * context-switch storm runs ~2.5% slower for it than with "local"
 * (sched_clock(), trace-cmd's default).  So the instance runs on "local",
 * and this maps its times to CLOCK_MONOTONIC by points: a second, tiny
 * instance on the same clock takes a trace_marker write between two
 * clock_gettime(CLOCK_MONOTONIC) calls; the marker's time read back from
 * that CPU's trace_pipe_raw pairs with the middle of the two (the best
 * bracket of three writes: a microsecond or two wide), corrected by where
 * in its bracket a marker takes its time (measured at open with the
 * instance on "mono").  ("perf",
 * local_clock(), is no good for this: on such a VM it moves against
 * CLOCK_MONOTONIC by up to a millisecond between reads.)
 *
 * At open, a point on every CPU the thread may run on: if their offsets
 * disagree by more than REC_CLOCKSYNC_SKEW_NS, sched_clock() is not one
 * clock across CPUs here and the open fails (the caller falls back to mono).
 * Then a point every REC_CLOCKSYNC_EVERY_NS, on whichever CPU.
 * Between points the offset is interpolated, past the last one it is
 * extrapolated (constant); the last REC_CLOCKSYNC_POINTS points are kept, so
 * a page decoded long after it was written (a spill) still finds its own.
 * Not here: per-CPU monotonicity of the result (ftrace.c clamps).
 */
#ifndef PP_RECORD_CLOCKSYNC_H
#define PP_RECORD_CLOCKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_CLOCKSYNC_EVERY_NS 250000000ull
#define REC_CLOCKSYNC_SKEW_NS 20000	/* most disagreement between CPUs at open */
#define REC_CLOCKSYNC_POINTS 4096u	/* a power of 2: 17 minutes of points */

struct rec_clocksync_pt {
	uint64_t clk_ns;
	int64_t off_ns;			/* CLOCK_MONOTONIC - local clock */
};

struct rec_tracefs;

struct rec_clocksync {
	const struct rec_tracefs *tfs;
	char rel[256];			/* the marker instance, under the tracefs root */
	char dir[512];			/* ... its whole path */
	int marker_fd;			/* its trace_marker */
	int *raw_fd;			/* per CPU number: its trace_pipe_raw, opened when used */
	int nr_raw;
	uint8_t *page;			/* one page read back */
	size_t page_sz;
	struct rec_clocksync_pt *pts;	/* ring of REC_CLOCKSYNC_POINTS, oldest at first */
	size_t first, nr;
	size_t hint;			/* the last lookup's pair of points: hint, hint + 1 */
	uint64_t next_ns;		/* CLOCK_MONOTONIC time of the next point */
	int64_t off_min, off_max;	/* over all points */
	int64_t skew_ns;		/* the CPUs' disagreement at open */
	int64_t bias_ns;		/* a marker's time minus its bracket's middle */
	uint64_t bracket_ns;		/* the widest bracket of a point */
	unsigned nr_failed;		/* points that got no marker back */
};

/*
 * Take points through the instance @rel of @tfs (events off, tracing on;
 * made and removed by the caller; this sets its trace_clock), of
 * @page_sz-byte pages: one on each CPU the calling thread may run on.
 * 0, -ERANGE if they disagree (skew_ns says by how much), or -errno.
 */
int rec_clocksync_open(struct rec_clocksync *c, const struct rec_tracefs *tfs, const char *rel,
		       size_t page_sz);

void rec_clocksync_close(struct rec_clocksync *c);

/* A point now, on this CPU: 0, or -1 if no marker came back (counted). */
int rec_clocksync_point(struct rec_clocksync *c);

/* A point if one is due at CLOCK_MONOTONIC time @now_ns. */
void rec_clocksync_tick(struct rec_clocksync *c, uint64_t now_ns);

/* Append a point (rec_clocksync_point's, or a unit test's); points come in time order. */
void rec_clocksync_add(struct rec_clocksync *c, uint64_t clk_ns, int64_t off_ns);

/* @clk_ns on CLOCK_MONOTONIC; unchanged while there is no point. */
uint64_t rec_clocksync_mono(struct rec_clocksync *c, uint64_t clk_ns);

/* The latest offset (0 before any point). */
int64_t rec_clocksync_last(const struct rec_clocksync *c);

#endif
