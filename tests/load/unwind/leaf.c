/* SPDX-License-Identifier: MIT */
/*
 * leaf.c - libunwindleaf.so, the shared library of the unwind-c load: leaf_sort() fills an
 * array and sorts it with libc's qsort() and the program's comparison function, round after
 * round, until it has spent its budget of CPU time (uw_sort_rounds()).
 *
 * Built like the program (-O2 -fomit-frame-pointer -g): its frames unwind only with DWARF.
 * A round interrupted or preempted counts as the shortest round (uw_sort_rounds()): the time
 * off the CPU is not the library's.
 */
#include "tests/load/unwind/spin.h"

unsigned long leaf_sort(int *v, size_t n, uint64_t budget, uint64_t gap,
			int (*cmp)(const void *, const void *));

__attribute__((noinline)) unsigned long leaf_sort(int *v, size_t n, uint64_t budget,
						  uint64_t gap, int (*cmp)(const void *, const void *))
{
	static struct uw_sort_state st = UW_SORT_STATE_INIT;

	return uw_sort_rounds(v, n, budget, gap, cmp, &st);
}
