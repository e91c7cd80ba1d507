/* SPDX-License-Identifier: MIT */
/*
 * ring.c - reading perf mmap ring buffers.
 *
 * The kernel advances data_head (we load it with acquire semantics so the
 * record bytes are visible), we advance data_tail (stored with release
 * semantics once we are done with the bytes).  Records never exceed the data
 * area; a record that straddles its end is copied into r->bounce.
 * Not here: decoding records or ordering them across rings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "ring.h"

int rec_ring_open(struct rec_ring *r, int fd, int cpu, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	r->fd = fd;
	r->cpu = cpu;
	r->data_sz = pages * page;
	r->map_sz = r->data_sz + page;
	p = mmap(NULL, r->map_sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
	free(r->bounce);
	r->bounce = NULL;
	r->bounce_sz = 0;
}

size_t rec_ring_pending(const struct rec_ring *r)
{
	const struct perf_event_mmap_page *pg = r->base;

	return (size_t)(__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - r->tail);
}

size_t rec_ring_drain(struct rec_ring *r, rec_ring_rec_fn fn, void *arg)
{
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail, start = tail;
	size_t mask = r->data_sz - 1;

	/* data_offset is 0 on kernels older than 4.1: data starts one page in */
	if (!pg->data_offset)
		data = (const uint8_t *)r->base + (r->map_sz - r->data_sz);
	while (tail < head) {
		size_t off = (size_t)tail & mask;
		const struct perf_event_header *h = (const void *)(data + off);
		struct perf_event_header hc;
		size_t sz;

		if (off + sizeof(hc) <= r->data_sz) {
			hc = *h;
		} else {
			size_t first = r->data_sz - off;

			memcpy(&hc, data + off, first);
			memcpy((uint8_t *)&hc + first, data, sizeof(hc) - first);
		}
		sz = hc.size;
		if (sz < sizeof(hc) || tail + sz > head)
			break;	/* cannot happen with a sane kernel; stop rather than loop */
		if (off + sz > r->data_sz) {
			size_t first = r->data_sz - off;

			if (r->bounce_sz < sz) {
				r->bounce = pp_xrealloc(r->bounce, sz);
				r->bounce_sz = sz;
			}
			memcpy(r->bounce, data + off, first);
			memcpy(r->bounce + first, data, sz - first);
			h = (const void *)r->bounce;
		}
		fn(h, arg);
		tail += sz;
	}
	r->tail = tail;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return (size_t)(tail - start);
}
