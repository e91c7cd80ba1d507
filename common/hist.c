/* SPDX-License-Identifier: MIT */
/*
 * hist.c - log-linear histogram (see hist.h for the layout and its error bound).
 *
 * Worked example with 2^7 sub-buckets: v = 1000 has its top bit at e = 9, so it falls in
 * group g = e - 6 = 3, which covers [512, 1024) in 128 buckets of width 2^(e-7) = 4; its
 * bucket is (1000 >> 2) - 128 = 122, i.e. [1000, 1003], reported as 1001.
 * Percentiles walk the groups in value order, using the per-group totals to skip whole
 * groups, so a query costs at most 58 + 128 steps.
 */
#include <math.h>
#include <string.h>

#include "common/hist.h"
#include "common/log.h"

static inline unsigned hist_index(uint64_t v, unsigned *sub)
{
	unsigned e, shift;

	if (v < PP_HIST_SUB) {
		*sub = (unsigned)v;
		return 0;
	}
	e = 63 - (unsigned)__builtin_clzll(v);
	shift = e - PP_HIST_SUB_BITS;
	*sub = (unsigned)(v >> shift) - PP_HIST_SUB;
	return e - PP_HIST_SUB_BITS + 1;
}

static inline void hist_bucket(unsigned g, unsigned sub, uint64_t *lo, uint64_t *width)
{
	unsigned shift;

	if (g == 0) {
		*lo = sub;
		*width = 1;
		return;
	}
	shift = g - 1;
	*lo = ((uint64_t)PP_HIST_SUB + sub) << shift;
	*width = 1ull << shift;
}

void pp_hist_bucket_of(uint64_t v, uint64_t *lo, uint64_t *width)
{
	unsigned sub, g = hist_index(v, &sub);

	hist_bucket(g, sub, lo, width);
}

void pp_hist_init(struct pp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void pp_hist_release(struct pp_hist *h)
{
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++)
		free(h->groups[g]);
	pp_hist_init(h);
}

struct pp_hist *pp_hist_new(void)
{
	struct pp_hist *h = pp_xmalloc(sizeof(*h));

	pp_hist_init(h);
	return h;
}

void pp_hist_free(struct pp_hist *h)
{
	if (!h)
		return;
	pp_hist_release(h);
	free(h);
}

void pp_hist_reset(struct pp_hist *h)
{
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		if (h->groups[g] && h->group_count[g])
			memset(h->groups[g], 0, PP_HIST_SUB * sizeof(uint64_t));
		h->group_count[g] = 0;
	}
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
}

/* Counts saturate instead of wrapping: 2^64 samples is not a real workload, garbage input is. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

void pp_hist_add_n(struct pp_hist *h, uint64_t v, uint64_t count)
{
	unsigned sub, g;

	if (!count)
		return;
	g = hist_index(v, &sub);
	if (!h->groups[g])
		h->groups[g] = pp_xcalloc(PP_HIST_SUB, sizeof(uint64_t));
	h->groups[g][sub] = sat_add(h->groups[g][sub], count);
	h->group_count[g] = sat_add(h->group_count[g], count);
	h->count = sat_add(h->count, count);
	h->sum += (unsigned __int128)v * count;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void pp_hist_merge(struct pp_hist *dst, const struct pp_hist *src)
{
	if (!src->count)
		return;
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		if (!src->group_count[g])
			continue;
		if (!dst->groups[g])
			dst->groups[g] = pp_xcalloc(PP_HIST_SUB, sizeof(uint64_t));
		for (unsigned i = 0; i < PP_HIST_SUB; i++)
			dst->groups[g][i] = sat_add(dst->groups[g][i], src->groups[g][i]);
		dst->group_count[g] = sat_add(dst->group_count[g], src->group_count[g]);
	}
	dst->count = sat_add(dst->count, src->count);
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t pp_hist_sum(const struct pp_hist *h)
{
	return h->sum > UINT64_MAX ? UINT64_MAX : (uint64_t)h->sum;
}

double pp_hist_mean(const struct pp_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

uint64_t pp_hist_percentile(const struct pp_hist *h, double p)
{
	uint64_t rank, seen = 0, lo, width, mid;
	double r;

	if (!h->count)
		return 0;
	if (!(p > 0.0))		/* also NaN */
		return h->min;
	if (p >= 100.0)
		return h->max;
	/* nearest rank: ceil(p/100 * n), in 1..n; the epsilon absorbs 99.9/100 rounding */
	r = ceil(p / 100.0 * (double)h->count - 1e-9);
	rank = r < 1.0 ? 1 : r >= (double)h->count ? h->count : (uint64_t)r;
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		if (seen + h->group_count[g] < rank) {
			seen += h->group_count[g];
			continue;
		}
		for (unsigned i = 0; i < PP_HIST_SUB; i++) {
			seen += h->groups[g][i];
			if (seen < rank)
				continue;
			hist_bucket(g, i, &lo, &width);
			mid = lo + (width - 1) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;		/* not reached unless counts saturated */
}
