/* SPDX-License-Identifier: MIT */
/*
 * ring.c - reading perf mmap ring buffers.
 *
 * The kernel advances data_head (loaded with acquire semantics so the record
 * bytes are visible), the reader advances data_tail (stored with release
 * semantics once it is done with the bytes: drain.c).
 * Not here: decoding records or ordering them across rings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sys.h"
#include "record/ring/ring.h"

int rec_ring_open(struct rec_ring *r, int fd, int cpu, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	r->fd = fd;
	r->cpu = cpu;
	r->data_sz = pages * page;
	r->map_sz = r->data_sz + page;
	p = pp_sys_mmap(NULL, r->map_sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->tail = 0;
	return 0;
}

void rec_ring_close(struct rec_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_sz);
	r->base = NULL;
}

size_t rec_ring_pending(const struct rec_ring *r)
{
	const struct perf_event_mmap_page *pg = r->base;

	return (size_t)(__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - r->tail);
}
