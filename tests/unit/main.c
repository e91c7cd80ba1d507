/* SPDX-License-Identifier: MIT */
/*
 * main.c - the CUnit runner for every suite listed in suites.def.
 *
 * usage: unit-tests [SUBSTRING]   run the suites whose name contains SUBSTRING
 * Exits non-zero when any assertion failed.
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "tests/unit/unit.h"

#define PP_SUITE(name) void test_##name##__register(void);
#include "suites.def"
#undef PP_SUITE

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
#define PP_SUITE(name)                                                                     \
	if (!only || strstr(#name, only))                                                  \
		test_##name##__register();
#include "suites.def"
#undef PP_SUITE
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
