/* SPDX-License-Identifier: MIT */
/*
 * test-hist.c - pp_hist: percentiles against exact sorted percentiles, merge, bounded memory.
 *
 * Each distribution draws 1M samples from a fixed-seed xorshift generator, so runs are
 * reproducible; the exact percentile is the nearest-rank element of the sorted samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/log.h"
#include "tests/unit/unit.h"

#define NR_SAMPLES 1000000

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* uniform in (0, 1] */
static double rng_unit(void)
{
	return ((rng_next() >> 11) + 1) * (1.0 / 9007199254740992.0);
}

enum dist { D_UNIFORM, D_EXP, D_LOGNORMAL, D_CONST, D_SPAN, D_SMALL, D__NR };

static const char *const dist_names[D__NR] = {
	"uniform", "exponential", "lognormal", "constant", "1..1e12", "small ints",
};

static uint64_t draw(enum dist d)
{
	double u, v;

	switch (d) {
	case D_UNIFORM:
		return rng_next() % 1000000;
	case D_EXP:
		return (uint64_t)(-log(rng_unit()) * 100000.0);
	case D_LOGNORMAL:
		u = rng_unit();
		v = rng_unit();
		return (uint64_t)exp(10.0 + 2.0 * sqrt(-2.0 * log(u)) * cos(2 * M_PI * v));
	case D_CONST:
		return 123456789;
	case D_SPAN:
		return (uint64_t)exp(rng_unit() * log(1e12));
	case D_SMALL:
		return rng_next() % 300;
	default:
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	double r = ceil(p / 100.0 * (double)n - 1e-9);
	size_t rank = r < 1 ? 1 : r > n ? n : (size_t)r;

	return sorted[rank - 1];
}

static unsigned nr_groups(const struct pp_hist *h)
{
	unsigned n = 0;

	for (unsigned g = 0; g < PP_HIST_GROUPS; g++)
		n += h->groups[g] != NULL;
	return n;
}

static void test_hist__percentiles(void)
{
	static const double ps[] = { 1, 25, 50, 90, 95, 99, 99.9, 99.99 };
	uint64_t *v = malloc(NR_SAMPLES * sizeof(*v));
	struct pp_hist h;

	CU_ASSERT_FATAL(v != NULL);
	for (int d = 0; d < D__NR; d++) {
		unsigned __int128 sum = 0;

		rng_state = 0x9e3779b97f4a7c15ull + d;
		pp_hist_init(&h);
		for (size_t i = 0; i < NR_SAMPLES; i++) {
			v[i] = draw(d);
			sum += v[i];
			pp_hist_add(&h, v[i]);
		}
		qsort(v, NR_SAMPLES, sizeof(*v), cmp_u64);
		CU_ASSERT_EQUAL(pp_hist_count(&h), NR_SAMPLES);
		CU_ASSERT_EQUAL(pp_hist_min(&h), v[0]);
		CU_ASSERT_EQUAL(pp_hist_max(&h), v[NR_SAMPLES - 1]);
		CU_ASSERT(pp_hist_sum(&h) == (uint64_t)sum);
		CU_ASSERT(fabs(pp_hist_mean(&h) - (double)sum / NR_SAMPLES) <
			  1e-6 * pp_hist_mean(&h) + 1e-9);
		CU_ASSERT_EQUAL(pp_hist_percentile(&h, 0), v[0]);
		CU_ASSERT_EQUAL(pp_hist_percentile(&h, 100), v[NR_SAMPLES - 1]);
		for (size_t i = 0; i < PP_ARRAY_SIZE(ps); i++) {
			uint64_t want = exact_percentile(v, NR_SAMPLES, ps[i]);
			uint64_t got = pp_hist_percentile(&h, ps[i]);
			double diff = fabs((double)got - (double)want);
			double err = want ? diff / (double)want : (double)got;

			if (err >= 0.01)
				fprintf(stderr, "\n%s p%g: exact %llu hist %llu\n", dist_names[d],
					ps[i], (unsigned long long)want, (unsigned long long)got);
			CU_ASSERT(err < 0.01);
		}
		pp_hist_release(&h);
	}
	free(v);
}

static void test_hist__merge(void)
{
	struct pp_hist a, b, whole;

	pp_hist_init(&a);
	pp_hist_init(&b);
	pp_hist_init(&whole);
	rng_state = 42;
	for (size_t i = 0; i < NR_SAMPLES; i++) {
		uint64_t x = draw(i % 2 ? D_LOGNORMAL : D_SPAN);

		pp_hist_add(i < NR_SAMPLES / 2 ? &a : &b, x);
		pp_hist_add(&whole, x);
	}
	pp_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(pp_hist_count(&a), pp_hist_count(&whole));
	CU_ASSERT_EQUAL(pp_hist_min(&a), pp_hist_min(&whole));
	CU_ASSERT_EQUAL(pp_hist_max(&a), pp_hist_max(&whole));
	CU_ASSERT(a.sum == whole.sum);
	CU_ASSERT_EQUAL(memcmp(a.group_count, whole.group_count, sizeof(a.group_count)), 0);
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		CU_ASSERT((a.groups[g] == NULL) == (whole.groups[g] == NULL));
		if (a.groups[g] && whole.groups[g])
			CU_ASSERT_EQUAL(memcmp(a.groups[g], whole.groups[g],
					       PP_HIST_SUB * sizeof(uint64_t)), 0);
	}
	for (double p = 0; p <= 100; p += 0.5)
		CU_ASSERT_EQUAL(pp_hist_percentile(&a, p), pp_hist_percentile(&whole, p));
	/* merging an empty histogram changes nothing */
	pp_hist_reset(&b);
	pp_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(pp_hist_count(&a), pp_hist_count(&whole));
	pp_hist_release(&a);
	pp_hist_release(&b);
	pp_hist_release(&whole);
}

/*
 * Memory: sizeof(struct pp_hist) (976 bytes on LP64) plus one 1 KiB group per power of two
 * hit, at most 58 groups (about 59 KiB).  More samples over the same range allocate nothing.
 */
static void test_hist__bounded_memory(void)
{
	struct pp_hist *h = pp_hist_new();
	unsigned after_small;

	CU_ASSERT(sizeof(struct pp_hist) <= 1024);
	rng_state = 7;
	/* [2^10, 2^20): ten groups, each hit by the first 10000 samples */
	for (int i = 0; i < 10000; i++)
		pp_hist_add(h, 1024 + rng_next() % ((1 << 20) - 1024));
	after_small = nr_groups(h);
	CU_ASSERT_EQUAL(after_small, 10);
	for (int i = 0; i < NR_SAMPLES; i++)
		pp_hist_add(h, 1024 + rng_next() % ((1 << 20) - 1024));
	CU_ASSERT_EQUAL(nr_groups(h), after_small);
	/* the whole uint64 range fits in the fixed set of groups */
	for (int s = 0; s < 64; s++)
		pp_hist_add(h, 1ull << s);
	pp_hist_add(h, UINT64_MAX);
	pp_hist_add(h, 0);
	CU_ASSERT_EQUAL(nr_groups(h), PP_HIST_GROUPS);
	CU_ASSERT_EQUAL(pp_hist_max(h), UINT64_MAX);
	CU_ASSERT_EQUAL(pp_hist_min(h), 0);
	CU_ASSERT_EQUAL(pp_hist_percentile(h, 100), UINT64_MAX);
	CU_ASSERT_EQUAL(pp_hist_sum(h), UINT64_MAX);	/* saturated */
	pp_hist_free(h);
	pp_hist_free(NULL);
}

static void test_hist__edges(void)
{
	struct pp_hist h;
	uint64_t lo, w;

	pp_hist_init(&h);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 50), 0);
	CU_ASSERT_EQUAL(pp_hist_min(&h), 0);
	CU_ASSERT_EQUAL(pp_hist_mean(&h), 0.0);
	pp_hist_add_n(&h, 5, 0);
	CU_ASSERT_EQUAL(pp_hist_count(&h), 0);
	pp_hist_add_n(&h, 10, 3);
	pp_hist_add_n(&h, 1000, 1);
	CU_ASSERT_EQUAL(pp_hist_count(&h), 4);
	CU_ASSERT_EQUAL(pp_hist_sum(&h), 1030);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 75), 10);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 76), 1000);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, NAN), 10);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, -5), 10);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 1e9), 1000);
	pp_hist_bucket_of(1000, &lo, &w);
	CU_ASSERT(lo == 1000 && w == 4);
	pp_hist_bucket_of(255, &lo, &w);
	CU_ASSERT(lo == 255 && w == 1);
	pp_hist_bucket_of(UINT64_MAX, &lo, &w);
	CU_ASSERT(lo + (w - 1) == UINT64_MAX);
	pp_hist_reset(&h);
	CU_ASSERT_EQUAL(pp_hist_count(&h), 0);
	CU_ASSERT_EQUAL(pp_hist_max(&h), 0);
	pp_hist_add(&h, 7);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 50), 7);
	pp_hist_release(&h);
}

void test_hist__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_hist__percentiles, "percentiles are within 1% of exact on 1M samples"),
		PP_TEST(test_hist__merge, "merging two halves equals the whole"),
		PP_TEST(test_hist__bounded_memory, "memory is bounded whatever the sample count"),
		PP_TEST(test_hist__edges, "empty, zero counts, clamped p, bucket bounds"),
	};

	pp_suite_add("hist", tests, PP_ARRAY_SIZE(tests));
}
