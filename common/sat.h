/* SPDX-License-Identifier: MIT */
/*
 * sat.h - arithmetic on numbers read from a capture, at the edges of uint64_t.
 *
 * A capture is data from elsewhere: a loss record may say 2^64-1, a time may
 * sit a nanosecond before 2^64.  Sums of such counts stop at UINT64_MAX and
 * remember that they did (a report then says "or more"), and the mapping of
 * a capture time to the wall clock refuses what would wrap, so that no
 * report prints "lost 4" for 2^64-1 + 5 or a date before the recording.
 * Not here: parsing numbers (units.h).
 */
#ifndef PP_COMMON_SAT_H
#define PP_COMMON_SAT_H

#include <stdbool.h>
#include <stdint.h>

/* A count that saturates: @v, and whether a sum went past UINT64_MAX. */
struct pp_sat_count {
	uint64_t v;
	bool sat;
};

/**
 * pp_sat_add() - *@acc += @v, stopping at UINT64_MAX
 * Return: true when the sum did not fit (then *@acc is UINT64_MAX).
 */
static inline bool pp_sat_add(uint64_t *acc, uint64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc)) {
		*acc = UINT64_MAX;
		return true;
	}
	return false;
}

/** pp_sat_count_add() - @c += @v; once saturated, @c stays so. */
static inline void pp_sat_count_add(struct pp_sat_count *c, uint64_t v)
{
	if (pp_sat_add(&c->v, v))
		c->sat = true;
}

/**
 * pp_time_map_ns() - the time on another clock of @t_ns, given one instant known
 * on both: @base_ns on @t_ns's clock is @other_ns on the other
 * @out: the result, 0 when out of range
 *
 * Return: false when the result does not fit in 0..UINT64_MAX (a capture time
 * near 2^64, or long before the known instant): the caller prints "out of
 * range", never a wrapped date.
 */
static inline bool pp_time_map_ns(uint64_t t_ns, uint64_t base_ns, uint64_t other_ns,
				  uint64_t *out)
{
	bool ok;

	if (t_ns >= base_ns)
		ok = !__builtin_add_overflow(other_ns, t_ns - base_ns, out);
	else
		ok = !__builtin_sub_overflow(other_ns, base_ns - t_ns, out);
	if (!ok)
		*out = 0;
	return ok;
}

#endif
