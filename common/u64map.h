/* SPDX-License-Identifier: MIT */
/*
 * u64map.h - a hash map from uint64_t keys to pointer-sized values.
 *
 * Open addressing with linear probing and backward-shift deletion, so there
 * are no tombstones and lookups stay short after many deletions (task
 * tables churn).  Key 0 is allowed (kept in a side slot).  Not thread-safe.
 */
#ifndef PP_COMMON_U64MAP_H
#define PP_COMMON_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_u64map_slot {
	uint64_t key;
	void *val;
};

struct pp_u64map {
	struct pp_u64map_slot *slots;	/* NULL until the first insert */
	size_t cap;			/* power of two */
	size_t nr;			/* entries, the zero key included */
	bool has_zero;
	void *zero_val;
};

#define PP_U64MAP_INIT { NULL, 0, 0, false, NULL }

/** pp_u64map_release() - free the table (not the values). */
void pp_u64map_release(struct pp_u64map *m);
/** pp_u64map_get() - the value of @key, or NULL. */
void *pp_u64map_get(const struct pp_u64map *m, uint64_t key);
/** pp_u64map_slot() - the address of @key's value, inserting NULL if absent; valid until the next insert. */
void **pp_u64map_slot(struct pp_u64map *m, uint64_t key);
/** pp_u64map_put() - set @key to @val. */
void pp_u64map_put(struct pp_u64map *m, uint64_t key, void *val);
/** pp_u64map_del() - remove @key; return its value or NULL. */
void *pp_u64map_del(struct pp_u64map *m, uint64_t key);

/* Iteration: for (size_t i = 0; pp_u64map_next(m, &i, &k, &v);) ... (no inserts meanwhile) */
bool pp_u64map_next(const struct pp_u64map *m, size_t *iter, uint64_t *key, void **val);

/**
 * pp_u64map_keys() - every key of @m, ascending: an order that does not depend on the
 * table's history (what is written for others to read)
 * Return: a new array of *@nr keys, the caller's (never NULL).
 */
uint64_t *pp_u64map_keys(const struct pp_u64map *m, size_t *nr);

/** pp_u64map_free_all() - free() every value, then release the table. */
void pp_u64map_free_all(struct pp_u64map *m);

#endif
