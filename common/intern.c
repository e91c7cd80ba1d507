/* SPDX-License-Identifier: MIT */
/*
 * intern.c - dense numbering of byte strings; see intern.h.
 *
 * Keys live in 64 KiB chunks (a key larger than that gets a chunk of its own), and an
 * entry array maps index -> (key, size, hash).  The hash table holds index + 1 (0 is an
 * empty slot) with linear probing at a load of at most 1/2; there is no deletion, so no
 * tombstones are needed.
 */
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"

#define CHUNK_SZ (64u << 10)

struct intern_chunk {
	struct intern_chunk *next;
	size_t used, size;
	char data[];
};

struct intern_ent {
	const char *key;
	size_t sz;
	uint64_t hash;
};

struct pp_intern {
	struct intern_chunk *chunks;
	struct intern_ent *ents;
	size_t nr, alloc;
	uint32_t *slots;	/* index + 1, 0 = empty */
	size_t cap;		/* power of two */
};

struct pp_intern *pp_intern_new(void)
{
	return pp_xcalloc(1, sizeof(struct pp_intern));
}

void pp_intern_free(struct pp_intern *t)
{
	if (!t)
		return;
	while (t->chunks) {
		struct intern_chunk *c = t->chunks;
		t->chunks = c->next;
		free(c);
	}
	free(t->ents);
	free(t->slots);
	free(t);
}

uint64_t pp_intern_hash(const void *key, size_t sz)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < sz; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static const char *store(struct pp_intern *t, const void *key, size_t sz)
{
	struct intern_chunk *c = t->chunks;
	char *p;

	if (!c || c->size - c->used < sz + 1) {
		size_t size = sz + 1 > CHUNK_SZ ? sz + 1 : CHUNK_SZ;
		struct intern_chunk *n = pp_xmalloc(sizeof(*n) + size);

		n->used = 0;
		n->size = size;
		if (c && size > CHUNK_SZ) {	/* a big key: keep filling the current chunk */
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			t->chunks = n;
		}
		c = n;
	}
	p = c->data + c->used;
	memcpy(p, key, sz);
	p[sz] = '\0';
	c->used += sz + 1;
	return p;
}

static void grow(struct pp_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	uint32_t *s = pp_xcalloc(cap, sizeof(*s));

	for (size_t i = 0; i < t->nr; i++) {
		size_t j = (size_t)t->ents[i].hash & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
}

/* The slot of @key: holding its index + 1, or empty (0) where it would go. */
static size_t probe(const struct pp_intern *t, const void *key, size_t sz, uint64_t h)
{
	size_t j = (size_t)h & (t->cap - 1);

	for (;; j = (j + 1) & (t->cap - 1)) {
		uint32_t v = t->slots[j];
		if (!v)
			return j;
		const struct intern_ent *e = &t->ents[v - 1];
		if (e->hash == h && e->sz == sz && !memcmp(e->key, key, sz))
			return j;
	}
}

uint32_t pp_intern_put(struct pp_intern *t, const void *key, size_t sz, bool *added)
{
	uint64_t h = pp_intern_hash(key, sz);
	size_t j;

	if (2 * (t->nr + 1) > t->cap)
		grow(t);
	j = probe(t, key, sz, h);
	if (t->slots[j]) {
		if (added)
			*added = false;
		return t->slots[j] - 1;
	}
	PP_BUG_ON(t->nr >= UINT32_MAX - 1);
	if (t->nr == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 256;
		t->ents = pp_xrealloc(t->ents, t->alloc * sizeof(*t->ents));
	}
	t->ents[t->nr] = (struct intern_ent){ store(t, key, sz), sz, h };
	t->slots[j] = (uint32_t)++t->nr;
	if (added)
		*added = true;
	return (uint32_t)t->nr - 1;
}

uint32_t pp_intern_put_str(struct pp_intern *t, const char *s, bool *added)
{
	return pp_intern_put(t, s, strlen(s), added);
}

int64_t pp_intern_find(const struct pp_intern *t, const void *key, size_t sz)
{
	size_t j;

	if (!t->cap)
		return -1;
	j = probe(t, key, sz, pp_intern_hash(key, sz));
	return t->slots[j] ? (int64_t)t->slots[j] - 1 : -1;
}

const void *pp_intern_key(const struct pp_intern *t, uint32_t idx, size_t *sz)
{
	PP_BUG_ON(idx >= t->nr);
	if (sz)
		*sz = t->ents[idx].sz;
	return t->ents[idx].key;
}

size_t pp_intern_count(const struct pp_intern *t)
{
	return t->nr;
}
