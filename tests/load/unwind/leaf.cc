// SPDX-License-Identifier: MIT
/*
 * leaf.cc - libunwindleafxx.so, the shared library of the unwind-cxx load: the C++ twin of
 * leaf.c (ppload::leaf_sort, a function in a namespace, sorting with libc's qsort and the
 * program's comparison function until its budget of CPU time is spent).
 */
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tests/load/unwind/spin.h"

namespace ppload {

unsigned long leaf_sort(int *v, std::size_t n, std::uint64_t budget,
			int (*cmp)(const void *, const void *));

__attribute__((noinline)) unsigned long leaf_sort(int *v, std::size_t n, std::uint64_t budget,
						  int (*cmp)(const void *, const void *))
{
	static std::uint64_t shortest = UINT64_MAX;
	static std::uint32_t seed = 2463534242u;
	unsigned long rounds = 0;
	std::uint64_t spent = 0;

	while (spent < budget) {
		std::uint64_t t0 = UW_TICKS(), t;

		for (std::size_t i = 0; i < n; i++)
			v[i] = (int)(uw_rand(&seed) & 0xffff);
		std::qsort(v, n, sizeof(*v), cmp);
		t = UW_TICKS() - t0;
		if (t < shortest)
			shortest = t;
		spent += t < 2 * shortest ? t : 2 * shortest;
		rounds++;
	}
	return rounds;
}

} // namespace ppload
