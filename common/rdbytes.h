/* SPDX-License-Identifier: MIT */
/*
 * rdbytes.h - the numbers of DWARF's byte streams (CFI, unit headers, address ranges):
 * little-endian integers of 1 to 8 bytes, and unsigned LEB128.
 *
 * LEB128: seven bits a byte, low bits first, the top bit set on every byte but the last.
 * Bits past 64 are dropped; a number that runs off the buffer sets *bad and reads as 0.
 * For files from anyone: nothing here reads past @end.  Not here: pp's own varints
 * (format/, wire.h).
 */
#ifndef PP_COMMON_RDBYTES_H
#define PP_COMMON_RDBYTES_H

#include <stdbool.h>
#include <stdint.h>

/* The @n (1-8) bytes at @p as a little-endian number; the caller has checked they are there. */
static inline uint64_t pp_rd_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The LEB128 number at *@p (advanced past it, at most to @end). */
static inline uint64_t pp_uleb128(const uint8_t **p, const uint8_t *end, bool *bad)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	*bad = true;
	return 0;
}

#endif
