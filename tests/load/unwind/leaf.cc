// SPDX-License-Identifier: MIT
/*
 * leaf.cc - libunwindleafxx.so, the shared library of the unwind-cxx load: the C++ twin of
 * leaf.c (ppload::leaf_sort, a function in a namespace, sorting with libc's qsort and the
 * program's comparison function until its budget of CPU time is spent).
 */
#include <cstddef>
#include <cstdint>

#include "tests/load/unwind/spin.h"

namespace ppload {

unsigned long leaf_sort(int *v, std::size_t n, std::uint64_t budget, std::uint64_t gap,
			int (*cmp)(const void *, const void *));

__attribute__((noinline)) unsigned long leaf_sort(int *v, std::size_t n, std::uint64_t budget,
						  std::uint64_t gap, int (*cmp)(const void *, const void *))
{
	static struct uw_sort_state st = UW_SORT_STATE_INIT;

	return uw_sort_rounds(v, n, budget, gap, cmp, &st);
}

} // namespace ppload
