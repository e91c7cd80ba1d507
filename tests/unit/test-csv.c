/* SPDX-License-Identifier: MIT */
/*
 * test-csv.c - CSV fields (common/csv.c): quotes doubled inside quotes, and a
 * field quoted when needed left bare when it can be.
 */
#include "common/csv.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static void test_csv__fields(void)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_csv_add_quoted(&b, "say \"hi\"");
	pp_buf_addch(&b, ',');
	pp_csv_add_quoted(&b, "");
	pp_buf_addch(&b, ',');
	pp_csv_add(&b, "plain name");
	pp_buf_addch(&b, ',');
	pp_csv_add(&b, "a,b");
	pp_buf_addch(&b, ',');
	pp_csv_add(&b, "x\"y");
	pp_buf_addch(&b, ',');
	pp_csv_add(&b, "two\nlines");
	pp_buf_addch(&b, ',');
	pp_csv_add(&b, "cr\r");	/* a CR alone keeps a field bare, as hrtimer printed it */
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b),
			       "\"say \"\"hi\"\"\",\"\",plain name,\"a,b\",\"x\"\"y\",\"two\nlines\",cr\r");
	pp_buf_release(&b);
}

void test_csv__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_csv__fields, "CSV fields: quoted always, or only with , \" or a newline"),
	};

	pp_suite_add("csv", tests, PP_ARRAY_SIZE(tests));
}
