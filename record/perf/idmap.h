/* SPDX-License-Identifier: MIT */
/*
 * idmap.h - perf sample id -> evsel index, for the records the rings return.
 *
 * Every perf fd has a kernel id (PERF_EVENT_IOC_ID) that its samples carry
 * first; the map turns it into the index of the evsel it was opened for, or
 * -1 for the tracking (side-band) event.  Open addressing over a power-of-2
 * table at most half full; sized once, never grown.
 * Not here: opening the fds that fill it (evopen.c) or decoding records (ring/sideband.c).
 */
#ifndef PP_RECORD_IDMAP_H
#define PP_RECORD_IDMAP_H

#include <stddef.h>
#include <stdint.h>

/* Perf sample id -> evsel index (-1: tracking event); open addressing. */
struct rec_idmap {
	uint64_t *keys;			/* 0 = empty (kernel ids start at 1) */
	int32_t *vals;
	size_t cap;			/* a power of 2 */
};

/**
 * rec_idmap_init() - an empty map with room for @n ids
 * @m: the map (zeroed or released)
 * @n: how many ids will be put; the table gets at least 2 * @n slots, 64 at least
 *
 * Memory comes from pp_xcalloc() (fatal on OOM).
 */
void rec_idmap_init(struct rec_idmap *m, size_t n);

/**
 * rec_idmap_put() - map kernel id @kid (not 0) to @val, replacing an earlier value
 *
 * The map is never grown: at most the @n of rec_idmap_init() ids go in.
 */
void rec_idmap_put(struct rec_idmap *m, uint64_t kid, int val);

/** rec_idmap_get() - the evsel index for kernel id @kid, or -2 when unknown. */
int rec_idmap_get(const struct rec_idmap *m, uint64_t kid);

/** rec_idmap_release() - free the table (the struct itself is the caller's). */
void rec_idmap_release(struct rec_idmap *m);

#endif
