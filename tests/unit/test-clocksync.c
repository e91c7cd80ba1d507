/* SPDX-License-Identifier: MIT */
/*
 * test-clocksync.c - the local clock to CLOCK_MONOTONIC mapping (record/ftrace/clocksync.h)
 * from points given by hand: no point, before the first, between two
 * (interpolated), after the last (extrapolated), a point out of order, and
 * the ring of points wrapping.  The marker measurement itself needs tracefs:
 * t113 checks it against perf's clock on real switches.
 */
#include <string.h>

#include "common/log.h"
#include "record/ftrace/clocksync.h"
#include "tests/unit/unit.h"

static void test_clocksync__no_point_is_identity(void)
{
	struct rec_clocksync c;

	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 12345), 12345);
	CU_ASSERT_EQUAL(rec_clocksync_last(&c), 0);
}

static void test_clocksync__interpolates_between_points(void)
{
	struct rec_clocksync c;

	memset(&c, 0, sizeof(c));
	rec_clocksync_add(&c, 1000000, 5000);
	rec_clocksync_add(&c, 2000000, 7000);
	rec_clocksync_add(&c, 3000000, -1000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 0), 5000);		/* before: the first */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1000000), 1005000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1500000), 1506000);	/* halfway */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1750000), 1756500);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 2000000), 2007000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 2500000), 2503000);	/* a falling offset */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 3000000), 2999000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 9000000), 8999000);	/* after: the last */
	/* backwards, and back: the remembered pair of points is checked, not trusted */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1500000), 1506000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 2500000), 2503000);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1999999), 2006998);	/* 6999.998, truncated */
	CU_ASSERT_EQUAL(rec_clocksync_last(&c), -1000);
	CU_ASSERT_EQUAL(c.off_min, -1000);
	CU_ASSERT_EQUAL(c.off_max, 7000);
	rec_clocksync_close(&c);
}

static void test_clocksync__out_of_order_point_ignored(void)
{
	struct rec_clocksync c;

	memset(&c, 0, sizeof(c));
	rec_clocksync_add(&c, 2000, 10);
	rec_clocksync_add(&c, 1000, 99);	/* earlier than the last: dropped */
	rec_clocksync_add(&c, 2000, 99);	/* the same time: dropped */
	CU_ASSERT_EQUAL(c.nr, 1);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1500), 1510);
	rec_clocksync_close(&c);
}

static void test_clocksync__ring_keeps_the_newest(void)
{
	struct rec_clocksync c;
	const uint64_t n = REC_CLOCKSYNC_POINTS + 100;

	memset(&c, 0, sizeof(c));
	for (uint64_t i = 0; i < n; i++) {
		rec_clocksync_add(&c, (i + 1) * 1000, (int64_t)i);
		if (i == 200)	/* a lookup whose pair the ring later moves */
			CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 150500), 150500 + 149);
	}
	CU_ASSERT_EQUAL(c.nr, REC_CLOCKSYNC_POINTS);
	/* the oldest 100 are gone: before the oldest kept, its offset (100) */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 1000), 1100);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 101000), 101100);
	/* in the middle of the wrapped ring: interpolated between points i and i+1 */
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, 4000500), 4000500 + 3999);
	CU_ASSERT_EQUAL(rec_clocksync_mono(&c, n * 1000), n * 1000 + n - 1);
	CU_ASSERT_EQUAL(rec_clocksync_last(&c), (int64_t)(n - 1));
	rec_clocksync_close(&c);
}

void test_clocksync__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_clocksync__no_point_is_identity, "no point: times pass unchanged"),
		PP_TEST(test_clocksync__interpolates_between_points,
			"between points interpolated, before the first and after the last constant"),
		PP_TEST(test_clocksync__out_of_order_point_ignored,
			"a point not after the last one is ignored"),
		PP_TEST(test_clocksync__ring_keeps_the_newest,
			"past REC_CLOCKSYNC_POINTS the oldest go; lookups in the wrapped ring"),
	};
	pp_suite_add("clocksync", tests, PP_ARRAY_SIZE(tests));
}
