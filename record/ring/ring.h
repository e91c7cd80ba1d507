/* SPDX-License-Identifier: MIT */
/*
 * ring.h - one perf mmap ring buffer: map it, walk its records, free space.
 *
 * A ring is the metadata page plus 2^n data pages mapped from one perf fd;
 * other fds on the same CPU are redirected into it (PERF_EVENT_IOC_SET_OUTPUT).
 * Not here: copying the records out (drain.c), what they mean (sideband.c)
 * or their order (merge.c).
 */
#ifndef PP_RECORD_RING_H
#define PP_RECORD_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct rec_ring {
	int fd;				/* the fd the ring is mapped from (not owned) */
	int cpu;			/* the CPU it collects, -1 if per thread */
	void *base;			/* the metadata page; data follows */
	size_t map_sz;			/* whole mapping */
	size_t data_sz;			/* data area, a power of 2 */
	uint64_t tail;			/* our read position */
	size_t max_pending;		/* most bytes taken in one drain */
	size_t last_drained;		/* bytes taken by the last drain */
};

/**
 * rec_ring_open() - map the ring of a perf fd
 * @r: the ring to fill in (zeroed by the caller)
 * @fd: a perf event fd opened on @cpu
 * @cpu: the CPU, for reports
 * @pages: data pages, a power of 2
 *
 * Return: 0 or -errno (EPERM/ENOMEM from mmap when the mlock limit is hit).
 */
int rec_ring_open(struct rec_ring *r, int fd, int cpu, size_t pages);

/** rec_ring_close() - unmap the ring (the fd stays open). */
void rec_ring_close(struct rec_ring *r);

/** rec_ring_pending() - bytes written by the kernel and not yet drained. */
size_t rec_ring_pending(const struct rec_ring *r);

#endif
