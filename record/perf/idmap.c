/* SPDX-License-Identifier: MIT */
/*
 * idmap.c - perf sample id -> evsel index: a linear-probing hash table.
 *
 * Keys are the kernel's ids (never 0, so 0 marks an empty slot), hashed by
 * Fibonacci multiplication; the table is sized at twice the number of fds,
 * so a probe sequence always ends at an empty slot.
 * Not here: which fds exist (evopen.c) or what a sample holds (sideband.c).
 */
#include <stdlib.h>

#include "common/log.h"
#include "record/perf/idmap.h"

void rec_idmap_init(struct rec_idmap *m, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	m->cap = cap;
	m->keys = pp_xcalloc(cap, sizeof(*m->keys));
	m->vals = pp_xcalloc(cap, sizeof(*m->vals));
}

static inline size_t idmap_slot(const struct rec_idmap *m, uint64_t kid)
{
	return (size_t)((kid * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
}

void rec_idmap_put(struct rec_idmap *m, uint64_t kid, int val)
{
	size_t i = idmap_slot(m, kid);

	while (m->keys[i] && m->keys[i] != kid)
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = kid;
	m->vals[i] = val;
}

int rec_idmap_get(const struct rec_idmap *m, uint64_t kid)
{
	if (!m->cap || !kid)
		return -2;
	for (size_t i = idmap_slot(m, kid); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == kid)
			return m->vals[i];
	return -2;
}

void rec_idmap_release(struct rec_idmap *m)
{
	free(m->keys);
	free(m->vals);
}
