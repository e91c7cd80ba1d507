/* SPDX-License-Identifier: MIT */
/*
 * test-csv.c - CSV fields (common/csv.c): quotes doubled inside quotes, and a
 * field quoted when needed left bare when it can be.
 */
#include <stdbool.h>

#include "common/csv.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static void test_csv__fields(void)
{
	static const struct {
		bool quoted;		/* pp_csv_add_quoted(), else pp_csv_add() */
		const char *in;
	} f[] = {
		{ true, "say \"hi\"" }, { true, "" }, { false, "plain name" }, { false, "a,b" },
		{ false, "x\"y" }, { false, "two\nlines" },
		{ false, "cr\r" },	/* a CR alone keeps a field bare, as hrtimer printed it */
	};
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < PP_ARRAY_SIZE(f); i++) {
		if (i)
			pp_buf_addch(&b, ',');
		(f[i].quoted ? pp_csv_add_quoted : pp_csv_add)(&b, f[i].in);
	}
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
