/* SPDX-License-Identifier: MIT */
/*
 * test-detail.c - pp_detail_parse(): the items of --detail, units and errors.
 */
#include <string.h>

#include "common/detail.h"
#include "common/err.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static void test_detail__absent(void)
{
	struct pp_detail d;
	char err[128];

	CU_ASSERT_EQUAL(pp_detail_parse(NULL, &d, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(d.enabled);
	CU_ASSERT_EQUAL(pp_detail_parse("", &d, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(d.enabled);
	CU_ASSERT_FALSE(pp_detail_filters(&d));
	CU_ASSERT_EQUAL(d.before_ns, 0);
	CU_ASSERT_EQUAL(d.after_ns, 0);
}

static void test_detail__items(void)
{
	struct pp_detail d;
	char err[128];

	CU_ASSERT_EQUAL(pp_detail_parse("-1ms,+20us,hide<5us,samecpu,samekey,2", &d, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(d.before_ns, 1000000);
	CU_ASSERT_EQUAL(d.after_ns, 20000);
	CU_ASSERT_EQUAL(d.hide_ns, 5000);
	CU_ASSERT_TRUE(d.samecpu && d.samekey && d.same2);
	CU_ASSERT_FALSE(d.samepid || d.sametid || d.same1);
	CU_ASSERT_TRUE(pp_detail_filters(&d));
	/* a bare number is +N, in ns */
	CU_ASSERT_EQUAL(pp_detail_parse("300,samepid,sametid,1", &d, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(d.after_ns, 300);
	CU_ASSERT_TRUE(d.samepid && d.sametid && d.same1);
}

static void test_detail__errors(void)
{
	struct pp_detail d;
	char err[128];

	CU_ASSERT_EQUAL(pp_detail_parse("samecpus", &d, err, sizeof(err)), PP_ESYNTAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "samecpus"));
	CU_ASSERT_EQUAL(pp_detail_parse("-1parsec", &d, err, sizeof(err)), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_detail_parse("hide<", &d, err, sizeof(err)), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_detail_parse("-", &d, err, sizeof(err)), PP_ESYNTAX);
}

void test_detail__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_detail__absent, "no --detail and a bare --detail"),
		PP_TEST(test_detail__items, "every item and time unit is understood"),
		PP_TEST(test_detail__errors, "unknown items and bad times are errors"),
	};

	pp_suite_add("detail", tests, PP_ARRAY_SIZE(tests));
}
