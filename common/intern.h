/* SPDX-License-Identifier: MIT */
/*
 * intern.h - struct pp_intern, a set of byte strings numbered densely in insertion order.
 *
 * Exporters number what they write out (strings of a protobuf string table, stack
 * frames, call stacks, pprof locations): each distinct key gets the next index, 0, 1,
 * 2 ..., and the key bytes can be read back by index.  Keys are copied into chunks and
 * live until pp_intern_free(); there is no deletion, so indexes are stable.  Lookups
 * hash the key (64-bit FNV-1a) and compare bytes, so different keys never share an
 * index.  Memory is the sum of the distinct keys plus 16 bytes each.  Not thread-safe.
 * Not here: values (keep a parallel array indexed by the returned number).
 */
#ifndef PP_COMMON_INTERN_H
#define PP_COMMON_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_intern;

/** pp_intern_new() - an empty set. Return: owned by the caller (pp_intern_free()). */
struct pp_intern *pp_intern_new(void);

/** pp_intern_free() - free the set and every key; NULL is a no-op. */
void pp_intern_free(struct pp_intern *t);

/**
 * pp_intern_put() - the index of key @key (@sz bytes), adding it when new
 * @added: set to true when the key was added by this call (may be NULL)
 * Return: the key's index, 0-based, in the order keys were first added.
 */
uint32_t pp_intern_put(struct pp_intern *t, const void *key, size_t sz, bool *added);

/** pp_intern_put_str() - pp_intern_put() of a C string (its terminating NUL excluded). */
uint32_t pp_intern_put_str(struct pp_intern *t, const char *s, bool *added);

/** pp_intern_find() - the index of @key, or -1 when absent. */
int64_t pp_intern_find(const struct pp_intern *t, const void *key, size_t sz);

/**
 * pp_intern_key() - the key of index @idx (< pp_intern_count())
 * @sz: receives its length (may be NULL)
 * Return: the bytes, followed by a NUL that is not part of the key (so string keys are
 * C strings); borrowed until pp_intern_free().
 */
const void *pp_intern_key(const struct pp_intern *t, uint32_t idx, size_t *sz);

/** pp_intern_count() - distinct keys added so far. */
size_t pp_intern_count(const struct pp_intern *t);

/** pp_intern_hash() - the 64-bit FNV-1a hash the set uses (exposed for tests and callers). */
uint64_t pp_intern_hash(const void *key, size_t sz);

#endif
