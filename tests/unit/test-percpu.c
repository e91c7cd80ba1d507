/* SPDX-License-Identifier: MIT */
/*
 * test-percpu.c - per-CPU arrays grown as CPUs appear (common/percpu.c): to the CPU
 * asked for or doubled, the new elements zeroed, the old ones kept.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/percpu.h"
#include "tests/unit/unit.h"

struct cpu_slot {
	uint64_t a;
	uint32_t b;
};

static void test_percpu__grow(void)
{
	struct cpu_slot *v = NULL;
	size_t nr = 0;

	v = pp_percpu_grow(v, &nr, 0, sizeof(*v));
	CU_ASSERT_EQUAL_FATAL(nr, 1);
	CU_ASSERT_EQUAL(v[0].a, 0);
	v[0].a = 7;
	v = pp_percpu_grow(v, &nr, 5, sizeof(*v));	/* past twice 1: to the CPU */
	CU_ASSERT_EQUAL_FATAL(nr, 6);
	CU_ASSERT_EQUAL(v[0].a, 7);
	for (size_t i = 1; i < nr; i++)
		CU_ASSERT(v[i].a == 0 && v[i].b == 0);
	v[5].b = 9;
	v = pp_percpu_grow(v, &nr, 6, sizeof(*v));	/* one past: doubled */
	CU_ASSERT_EQUAL_FATAL(nr, 12);
	CU_ASSERT(v[0].a == 7 && v[5].b == 9);
	for (size_t i = 6; i < nr; i++)
		CU_ASSERT(v[i].a == 0 && v[i].b == 0);
	CU_ASSERT_PTR_EQUAL(pp_percpu_grow(v, &nr, 11, sizeof(*v)), v);	/* inside: as it was */
	CU_ASSERT_EQUAL(nr, 12);
	free(v);
}

void test_percpu__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_percpu__grow,
			"a per-CPU array grows to the CPU or doubles, zeroed, the old CPUs kept"),
	};

	pp_suite_add("percpu", tests, PP_ARRAY_SIZE(tests));
}
