/* SPDX-License-Identifier: MIT */
/*
 * hash.h - hashing an array of 64-bit words (call stacks, keys of a few words).
 *
 * A multiply-xorshift per word, seeded with the length so that a prefix and
 * the whole differ: fast, and good enough for open-addressing tables indexed
 * by the low bits.  Not a stable format: nothing may store these values.
 * Not here: hashing bytes or strings.
 */
#ifndef PP_COMMON_HASH_H
#define PP_COMMON_HASH_H

#include <stdint.h>

/**
 * pp_hash_u64s() - hash @nr words at @v.
 * @v: the words (may be NULL when @nr is 0)
 * @nr: how many
 *
 * Return: the hash, any 64-bit value (0 included).
 */
static inline uint64_t pp_hash_u64s(const uint64_t *v, uint32_t nr)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ nr;

	for (uint32_t i = 0; i < nr; i++) {
		h ^= v[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

#endif
