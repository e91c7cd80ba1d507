/* SPDX-License-Identifier: MIT */
/*
 * vec.h - PP_VEC_PUSH, appending to a growable array held as (pointer, nr, cap).
 *
 * The capacity doubles (from 16), so pushes are amortized O(1); allocation
 * failure is fatal (pp_xrealloc).  The three variables are the caller's.
 */
#ifndef PP_COMMON_VEC_H
#define PP_COMMON_VEC_H

#include "common/log.h"

#define PP_VEC_PUSH(v, nr, cap, x)                                              \
	do {                                                                    \
		if ((nr) == (cap)) {                                            \
			(cap) = (cap) ? 2 * (cap) : 16;                         \
			(v) = pp_xrealloc((v), (cap) * sizeof(*(v)));           \
		}                                                               \
		(v)[(nr)++] = (x);                                              \
	} while (0)

#endif
