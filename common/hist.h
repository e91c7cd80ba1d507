/* SPDX-License-Identifier: MIT */
/*
 * hist.h - struct pp_hist, a bounded-memory log-linear histogram of uint64 values.
 *
 * HDR-histogram layout: values below 2^8 are counted exactly; above, each power of two
 * [2^e, 2^(e+1)) is cut into 2^7 = 128 equal sub-buckets, so a bucket is at most 1/128 of
 * its lower bound wide and a percentile (reported as the bucket midpoint, clamped to the
 * exact min/max) is within 1/256 (0.4 %) of the true sample value.  Buckets live in 58 groups
 * of 128 counters (group 0: [0, 128), group g >= 1: [2^(g+6), 2^(g+7))), each allocated on
 * first use: a histogram takes sizeof(struct pp_hist) (976 bytes on LP64) plus 1 KiB per power of
 * two actually hit, at most about 59 KiB, however many samples it holds.
 * count, min, max and sum are exact (sum kept in 128 bits; pp_hist_sum() saturates).
 * Allocation failure is fatal (pp_xcalloc), like the rest of common/.
 * Not here: printing (the analyzers' output tables do that).
 */
#ifndef PP_COMMON_HIST_H
#define PP_COMMON_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define PP_HIST_SUB_BITS 7
#define PP_HIST_SUB (1u << PP_HIST_SUB_BITS)		/* counters per group */
#define PP_HIST_GROUPS (64 - PP_HIST_SUB_BITS + 1)	/* 58 */

struct pp_hist {
	uint64_t count;				/* samples */
	uint64_t min, max;			/* exact; min == UINT64_MAX when empty */
	unsigned __int128 sum;			/* exact */
	uint64_t group_count[PP_HIST_GROUPS];	/* samples per group, to skip groups fast */
	uint64_t *groups[PP_HIST_GROUPS];	/* PP_HIST_SUB counters each, or NULL */
};

/** pp_hist_init() - make @h an empty histogram (embedded use; pair with pp_hist_release()). */
void pp_hist_init(struct pp_hist *h);

/** pp_hist_release() - free the bucket storage of @h; @h is left empty and reusable. */
void pp_hist_release(struct pp_hist *h);

/**
 * pp_hist_new() - allocate an empty histogram
 * Return: a new histogram (never NULL: OOM is fatal); the caller owns it and frees it with
 * pp_hist_free().
 */
struct pp_hist *pp_hist_new(void);

/** pp_hist_free() - release and free a histogram from pp_hist_new(); NULL is a no-op. */
void pp_hist_free(struct pp_hist *h);

/** pp_hist_reset() - forget all samples, keeping the bucket storage for reuse. */
void pp_hist_reset(struct pp_hist *h);

/** pp_hist_add_n() - record @count samples of value @v (@count == 0 is a no-op). */
void pp_hist_add_n(struct pp_hist *h, uint64_t v, uint64_t count);

/** pp_hist_add() - record one sample of value @v. */
static inline void pp_hist_add(struct pp_hist *h, uint64_t v)
{
	pp_hist_add_n(h, v, 1);
}

/** pp_hist_merge() - add every sample of @src to @dst (@src is unchanged). */
void pp_hist_merge(struct pp_hist *dst, const struct pp_hist *src);

/** pp_hist_count() - number of samples. */
static inline uint64_t pp_hist_count(const struct pp_hist *h)
{
	return h->count;
}

/** pp_hist_min() - smallest sample, 0 when empty. */
static inline uint64_t pp_hist_min(const struct pp_hist *h)
{
	return h->count ? h->min : 0;
}

/** pp_hist_max() - largest sample, 0 when empty. */
static inline uint64_t pp_hist_max(const struct pp_hist *h)
{
	return h->max;
}

/** pp_hist_sum() - sum of the samples, saturated at UINT64_MAX. */
uint64_t pp_hist_sum(const struct pp_hist *h);

/** pp_hist_mean() - arithmetic mean, 0.0 when empty. */
double pp_hist_mean(const struct pp_hist *h);

/**
 * pp_hist_percentile() - value at percentile @p
 * @h: the histogram
 * @p: 0..100 (99.9 is fine); out-of-range values are clamped, NaN reads as 0
 *
 * Nearest-rank definition: the smallest sample such that at least @p % of the samples are
 * <= it.  p == 0 gives the exact min, p == 100 the exact max; other values are the midpoint
 * of the bucket holding that sample, clamped to [min, max] (relative error < 0.4 %).
 * Return: the value, 0 when empty.
 */
uint64_t pp_hist_percentile(const struct pp_hist *h, double p);

/**
 * pp_hist_bucket_of() - lower bound and width of the bucket that holds @v
 * @v: a value
 * @lo: receives the smallest value of the bucket
 * @width: receives the number of values in the bucket (1 for exact buckets)
 *
 * Exposed for tests and for analyzers that print bucketed distributions.
 */
void pp_hist_bucket_of(uint64_t v, uint64_t *lo, uint64_t *width);

#endif
