/* SPDX-License-Identifier: MIT */
/*
 * u64map.c - open-addressing u64 hash map; see u64map.h.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/u64map.h"

static inline size_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

void pp_u64map_release(struct pp_u64map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void *pp_u64map_get(const struct pp_u64map *m, uint64_t key)
{
	if (key == 0)
		return m->has_zero ? m->zero_val : NULL;
	if (!m->cap)
		return NULL;
	for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		if (!m->slots[i].key)
			return NULL;
	}
}

static void grow(struct pp_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct pp_u64map_slot *s = pp_xcalloc(cap, sizeof(*s));

	for (size_t j = 0; j < m->cap; j++) {
		if (!m->slots[j].key)
			continue;
		size_t i = hash(m->slots[j].key) & (cap - 1);
		while (s[i].key)
			i = (i + 1) & (cap - 1);
		s[i] = m->slots[j];
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
}

void **pp_u64map_slot(struct pp_u64map *m, uint64_t key)
{
	if (key == 0) {
		if (!m->has_zero) {
			m->has_zero = true;
			m->zero_val = NULL;
			m->nr++;
		}
		return &m->zero_val;
	}
	if ((m->nr + 1) * 4 >= m->cap * 3)
		grow(m);
	size_t i = hash(key) & (m->cap - 1);
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i].key) {
		m->slots[i].key = key;
		m->slots[i].val = NULL;
		m->nr++;
	}
	return &m->slots[i].val;
}

void pp_u64map_put(struct pp_u64map *m, uint64_t key, void *val)
{
	*pp_u64map_slot(m, key) = val;
}

void *pp_u64map_del(struct pp_u64map *m, uint64_t key)
{
	void *v;

	if (key == 0) {
		if (!m->has_zero)
			return NULL;
		m->has_zero = false;
		m->nr--;
		return m->zero_val;
	}
	if (!m->cap)
		return NULL;
	size_t i = hash(key) & (m->cap - 1);
	while (m->slots[i].key != key) {
		if (!m->slots[i].key)
			return NULL;
		i = (i + 1) & (m->cap - 1);
	}
	v = m->slots[i].val;
	/* backward-shift: pull later entries of the run into the hole */
	for (size_t j = (i + 1) & (m->cap - 1); m->slots[j].key; j = (j + 1) & (m->cap - 1)) {
		size_t home = hash(m->slots[j].key) & (m->cap - 1);
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->slots[i].val = NULL;
	m->nr--;
	return v;
}

bool pp_u64map_next(const struct pp_u64map *m, size_t *iter, uint64_t *key, void **val)
{
	if (*iter == 0) {
		(*iter)++;
		if (m->has_zero) {
			*key = 0;
			*val = m->zero_val;
			return true;
		}
	}
	while (*iter - 1 < m->cap) {
		size_t i = (*iter)++ - 1;
		if (m->slots[i].key) {
			*key = m->slots[i].key;
			*val = m->slots[i].val;
			return true;
		}
	}
	return false;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t *pp_u64map_keys(const struct pp_u64map *m, size_t *nr)
{
	uint64_t *v = pp_xmalloc((m->nr + 1) * sizeof(*v)), k;
	size_t it = 0, n = 0;
	void *x;

	while (n < m->nr && pp_u64map_next(m, &it, &k, &x))
		v[n++] = k;
	qsort(v, n, sizeof(*v), cmp_key);
	*nr = n;
	return v;
}

void pp_u64map_free_all(struct pp_u64map *m)
{
	uint64_t k;
	void *v;

	for (size_t it = 0; pp_u64map_next(m, &it, &k, &v);)
		free(v);
	pp_u64map_release(m);
}
