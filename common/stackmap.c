/* SPDX-License-Identifier: MIT */
/*
 * stackmap.c - (key, u64 array) -> pointer map; see stackmap.h.
 *
 * Entries are allocated from 64 KiB chunks (a stack of 127 frames and its
 * header fit many times); oversized arrays get a chunk of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/stackmap.h"

#define CHUNK_SZ 65536

struct pp_stackmap_chunk {
	struct pp_stackmap_chunk *next;
	size_t used, size;
	uint64_t data[];
};

struct stack_ent {
	struct stack_ent *next;
	void *val;
	uint64_t key;
	uint32_t nr;
	uint32_t pad;
	uint64_t words[];
};

static uint64_t hash_words(uint64_t key, const uint64_t *w, uint32_t nr)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull + nr;

	for (uint32_t i = 0; i < nr; i++) {
		h ^= w[i] + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdull;
	}
	return h ^ (h >> 29);
}

static struct stack_ent *ent_alloc(struct pp_stackmap *m, uint32_t nr)
{
	size_t words = (sizeof(struct stack_ent) + 7) / 8 + nr;
	struct pp_stackmap_chunk *c = m->chunks;

	if (!c || c->used + words > c->size) {
		size_t size = words > CHUNK_SZ / 8 ? words : CHUNK_SZ / 8;
		c = pp_xmalloc(sizeof(*c) + size * 8);
		c->used = 0;
		c->size = size;
		c->next = m->chunks;
		m->chunks = c;
	}
	struct stack_ent *e = (struct stack_ent *)&c->data[c->used];
	c->used += words;
	return e;
}

void **pp_stackmap_slot(struct pp_stackmap *m, uint64_t key, const uint64_t *words, uint32_t nr)
{
	uint64_t h = hash_words(key, words, nr);
	void **slot = pp_u64map_slot(&m->map, h);
	struct stack_ent *e;

	for (e = *slot; e; e = e->next)
		if (e->key == key && e->nr == nr &&
		    (!nr || !memcmp(e->words, words, nr * sizeof(*words))))
			return &e->val;
	e = ent_alloc(m, nr);
	e->key = key;
	e->nr = nr;
	e->val = NULL;
	if (nr)
		memcpy(e->words, words, nr * sizeof(*words));
	e->next = *slot;
	*slot = e;
	m->nr++;
	return &e->val;
}

void pp_stackmap_release(struct pp_stackmap *m)
{
	while (m->chunks) {
		struct pp_stackmap_chunk *c = m->chunks;
		m->chunks = c->next;
		free(c);
	}
	pp_u64map_release(&m->map);
	m->nr = 0;
}
