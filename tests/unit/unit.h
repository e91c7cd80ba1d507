/* SPDX-License-Identifier: MIT */
/*
 * unit.h - helpers shared by the CUnit suites.
 *
 * PP_TEST(fn, "what it checks") entries go in a suite's table; pp_suite_add()
 * registers the table.  Suites need neither root nor perf_event_open.
 */
#ifndef PP_TESTS_UNIT_H
#define PP_TESTS_UNIT_H

#include <CUnit/CUnit.h>

struct pp_test {
	const char *desc;
	void (*fn)(void);
};

#define PP_TEST(fn, desc) { desc, fn }

/* Each suite's entry point, test_<name>__register(), from suites.def. */
#define PP_SUITE(name) void test_##name##__register(void);
#include "tests/unit/suites.def"
#undef PP_SUITE

static inline void pp_suite_add(const char *name, const struct pp_test *tests, unsigned nr)
{
	CU_pSuite s = CU_add_suite(name, NULL, NULL);

	for (unsigned i = 0; s && i < nr; i++)
		CU_add_test(s, tests[i].desc, tests[i].fn);
}

#endif
