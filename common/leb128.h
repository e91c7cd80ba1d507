/* SPDX-License-Identifier: MIT */
/*
 * leb128.h - DWARF's unsigned LEB128 numbers read from a bounded buffer.
 *
 * Seven bits a byte, low bits first, the top bit set on every byte but the last.  Bits past
 * 64 are dropped; a number that runs off the buffer sets *bad and reads as 0.  For files
 * from anyone: nothing here reads past @end.  Not here: pp's own varints (format/, wire.h).
 */
#ifndef PP_COMMON_LEB128_H
#define PP_COMMON_LEB128_H

#include <stdbool.h>
#include <stdint.h>

/* The number at *@p (advanced past it, at most to @end). */
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
