/* SPDX-License-Identifier: MIT */
/*
 * clocksync.c - the tracefs "local" clock mapped to CLOCK_MONOTONIC (see clocksync.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/ftrace/clocksync.h"
#include "record/ftrace/ftrace-page.h"
#include "record/ftrace/tracefs.h"

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU @cpu's trace_pipe_raw of the marker instance, emptied; -1 if it cannot be opened. */
static int raw_fd(struct rec_clocksync *c, int cpu)
{
	char path[600];

	if (cpu < 0)
		return -1;
	if (cpu >= c->nr_raw) {
		int n = cpu + 8;

		c->raw_fd = pp_xrealloc(c->raw_fd, (size_t)n * sizeof(*c->raw_fd));
		for (int i = c->nr_raw; i < n; i++)
			c->raw_fd[i] = -1;
		c->nr_raw = n;
	}
	if (c->raw_fd[cpu] < 0) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", c->dir, cpu);
		c->raw_fd[cpu] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	return c->raw_fd[cpu];
}

/*
 * The time of the last event on @fd's pages (draining it), 0 if none.  At
 * most 16 pages: the instance takes only our markers, but a writer that
 * keeps it busy must not keep us here.
 */
static uint64_t last_marker(struct rec_clocksync *c, int fd)
{
	uint64_t t = 0;
	ssize_t n;

	for (int i = 0; i < 16 && (n = read(fd, c->page, c->page_sz)) > 0; i++) {
		struct rec_ftpage it;
		struct rec_ftpage_ev ev;

		if (!rec_ftpage_open(&it, c->page, (size_t)n))
			continue;
		while (rec_ftpage_next(&it, &ev))
			t = ev.time_ns;
	}
	return t;
}

/*
 * One marker between two CLOCK_MONOTONIC reads, on one CPU: 0 and the pair
 * in @clk/@mono, with the bracket's width in @width.
 */
static int marker_pair(struct rec_clocksync *c, uint64_t *clk, uint64_t *mono, uint64_t *width)
{
	int cpu = sched_getcpu(), fd = raw_fd(c, cpu);
	uint64_t t0, t1, t;

	if (fd < 0)
		return -1;
	last_marker(c, fd);		/* what an interrupted point left */
	t0 = mono_now();
	if (write(c->marker_fd, "pp", 2) != 2)
		return -1;
	t1 = mono_now();
	if (sched_getcpu() != cpu)
		return -1;		/* moved during it: the marker is in another CPU's buffer */
	t = last_marker(c, fd);
	if (!t)
		return -1;
	*clk = t;
	*mono = t0 + (t1 - t0) / 2;
	*width = t1 - t0;
	return 0;
}

/* The best bracket of three markers: 0 and the pair, or -1. */
static int measure(struct rec_clocksync *c, uint64_t *clk, int64_t *off)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t k, m, w;

		if (marker_pair(c, &k, &m, &w) == 0 && w < best) {
			best = w;
			*clk = k;
			*off = (int64_t)(m - k);
		}
	}
	if (best == UINT64_MAX)
		return -1;
	*off += c->bias_ns;
	if (best > c->bracket_ns)
		c->bracket_ns = best;
	return 0;
}

/* A point on each CPU the thread may run on; their spread in skew_ns. */
static int every_cpu(struct rec_clocksync *c)
{
	cpu_set_t old, one;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	int rc = 0;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		uint64_t clk;
		int64_t off;

		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;	/* offline now */
		if (measure(c, &clk, &off)) {
			rc = -EIO;
			break;
		}
		rec_clocksync_add(c, clk, off);
		if (off < lo)
			lo = off;
		if (off > hi)
			hi = off;
	}
	sched_setaffinity(0, sizeof(old), &old);
	if (!rc && lo > hi)
		rc = -EIO;
	if (!rc)
		c->skew_ns = hi - lo;
	return rc;
}

static int set_trace_clock(const struct rec_clocksync *c, const char *name)
{
	char rel[600];

	snprintf(rel, sizeof(rel), "%s/trace_clock", c->rel);
	return rec_tracefs_append(c->tfs, rel, name);
}

/*
 * Where in its bracket a marker takes its time: markers on CLOCK_MONOTONIC
 * itself, against their brackets' middles (the best of three).
 */
static int calibrate(struct rec_clocksync *c)
{
	uint64_t clk;
	int64_t off;
	int rc = set_trace_clock(c, "mono");

	if (rc)
		return rc;
	if (measure(c, &clk, &off))
		return -EIO;
	c->bias_ns = -off;		/* off = middle - marker time */
	return set_trace_clock(c, "local");
}

int rec_clocksync_open(struct rec_clocksync *c, const struct rec_tracefs *tfs, const char *rel,
		       size_t page_sz)
{
	char path[600];
	int rc;

	memset(c, 0, sizeof(*c));
	c->tfs = tfs;
	snprintf(c->rel, sizeof(c->rel), "%s", rel);
	snprintf(c->dir, sizeof(c->dir), "%s/%s", tfs->root, rel);
	snprintf(path, sizeof(path), "%s/trace_marker", c->dir);
	c->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (c->marker_fd < 0)
		return -errno;
	c->page_sz = page_sz;
	c->page = pp_xmalloc(page_sz);
	c->pts = pp_xcalloc(REC_CLOCKSYNC_POINTS, sizeof(*c->pts));
	rc = calibrate(c);
	if (!rc)
		rc = every_cpu(c);
	if (!rc && c->skew_ns > REC_CLOCKSYNC_SKEW_NS)
		rc = -ERANGE;
	c->next_ns = mono_now() + REC_CLOCKSYNC_EVERY_NS;
	if (rc)
		rec_clocksync_close(c);
	return rc;
}

void rec_clocksync_close(struct rec_clocksync *c)
{
	for (int i = 0; i < c->nr_raw; i++)
		if (c->raw_fd[i] >= 0)
			close(c->raw_fd[i]);
	free(c->raw_fd);
	c->raw_fd = NULL;
	c->nr_raw = 0;
	if (c->dir[0] && c->marker_fd >= 0)	/* dir: opened (a zeroed struct has fd 0) */
		close(c->marker_fd);
	c->marker_fd = -1;
	c->dir[0] = '\0';
	free(c->page);
	c->page = NULL;
	free(c->pts);
	c->pts = NULL;
	c->nr = 0;
}

int rec_clocksync_point(struct rec_clocksync *c)
{
	uint64_t clk;
	int64_t off;

	c->next_ns = mono_now() + REC_CLOCKSYNC_EVERY_NS;
	if (c->marker_fd < 0 || !c->page || measure(c, &clk, &off)) {
		c->nr_failed++;
		return -1;
	}
	rec_clocksync_add(c, clk, off);
	return 0;
}

void rec_clocksync_tick(struct rec_clocksync *c, uint64_t now_ns)
{
	if (c->pts && now_ns >= c->next_ns)
		rec_clocksync_point(c);
}

static const struct rec_clocksync_pt *pt(const struct rec_clocksync *c, size_t i)
{
	return &c->pts[(c->first + i) & (REC_CLOCKSYNC_POINTS - 1)];
}

void rec_clocksync_add(struct rec_clocksync *c, uint64_t clk_ns, int64_t off_ns)
{
	struct rec_clocksync_pt *p;

	if (!c->pts)
		c->pts = pp_xcalloc(REC_CLOCKSYNC_POINTS, sizeof(*c->pts));
	if (c->nr && clk_ns <= pt(c, c->nr - 1)->clk_ns)
		return;			/* out of order (cannot be on one thread): ignored */
	if (c->nr == REC_CLOCKSYNC_POINTS) {
		c->first = (c->first + 1) & (REC_CLOCKSYNC_POINTS - 1);
		c->nr--;
	}
	p = &c->pts[(c->first + c->nr) & (REC_CLOCKSYNC_POINTS - 1)];
	p->clk_ns = clk_ns;
	p->off_ns = off_ns;
	if (!c->nr || off_ns < c->off_min)
		c->off_min = off_ns;
	if (!c->nr || off_ns > c->off_max)
		c->off_max = off_ns;
	c->nr++;
}

uint64_t rec_clocksync_mono(struct rec_clocksync *c, uint64_t clk_ns)
{
	const struct rec_clocksync_pt *a, *b;
	size_t lo = c->hint, hi = c->hint + 1;
	double frac;

	if (!c->nr)
		return clk_ns;
	if (clk_ns <= pt(c, 0)->clk_ns)
		return clk_ns + (uint64_t)pt(c, 0)->off_ns;
	if (clk_ns >= pt(c, c->nr - 1)->clk_ns)
		return clk_ns + (uint64_t)pt(c, c->nr - 1)->off_ns;
	/*
	 * The points around clk_ns: pts[lo] <= clk_ns < pts[hi].  Pages come
	 * in time order, so mostly the last lookup's pair (a stale hint, the
	 * ring having moved, only fails the check).
	 */
	if (hi >= c->nr || pt(c, lo)->clk_ns > clk_ns || pt(c, hi)->clk_ns <= clk_ns) {
		lo = 0;
		hi = c->nr - 1;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (pt(c, mid)->clk_ns <= clk_ns)
				lo = mid;
			else
				hi = mid;
		}
		c->hint = lo;
	}
	a = pt(c, lo);
	b = pt(c, hi);
	frac = (double)(clk_ns - a->clk_ns) / (double)(b->clk_ns - a->clk_ns);
	return clk_ns + (uint64_t)(a->off_ns + (int64_t)(frac * (double)(b->off_ns - a->off_ns)));
}

int64_t rec_clocksync_last(const struct rec_clocksync *c)
{
	return c->nr ? pt(c, c->nr - 1)->off_ns : 0;
}
