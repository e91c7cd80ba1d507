/* SPDX-License-Identifier: MIT */
/*
 * stackmap.h - struct pp_stackmap, a hash map from (key, array of u64) to a pointer.
 *
 * Analyzers see the same call stacks over and over; they resolve each distinct
 * (task, stack) once and keep the result here, so the per-event cost is one
 * hash of the frames and one comparison.  The key is the caller's (a tid mixed
 * with its comm, say).  Entries are copied into chunks and live until
 * pp_stackmap_release(); there is no deletion.  Not thread-safe.
 */
#ifndef PP_COMMON_STACKMAP_H
#define PP_COMMON_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"

struct pp_stackmap_chunk;

struct pp_stackmap {
	struct pp_u64map map;		/* hash -> entry chain */
	struct pp_stackmap_chunk *chunks;
	size_t nr;			/* distinct entries */
};

#define PP_STACKMAP_INIT { PP_U64MAP_INIT, NULL, 0 }

/**
 * pp_stackmap_slot() - the value of (@key, @words[0..@nr)), inserting NULL if absent
 * Return: the address of the value; stable until pp_stackmap_release().
 */
void **pp_stackmap_slot(struct pp_stackmap *m, uint64_t key, const uint64_t *words, uint32_t nr);

/** pp_stackmap_release() - free the entries (not the values they point to). */
void pp_stackmap_release(struct pp_stackmap *m);

#endif
