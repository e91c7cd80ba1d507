/* SPDX-License-Identifier: MIT */
/*
 * leaf.c - libunwindleaf.so, the shared library of the unwind-c load: leaf_sort() fills an
 * array and sorts it with libc's qsort() and the program's comparison function, round after
 * round, until it has spent its budget of CPU time.
 *
 * Built like the program (-O2 -fomit-frame-pointer -g): its frames unwind only with DWARF.
 * A round's time counts toward the budget up to twice the shortest round seen: a longer
 * round was interrupted or preempted, and that time is not the library's on the CPU.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/load/unwind/spin.h"

unsigned long leaf_sort(int *v, size_t n, uint64_t budget,
			int (*cmp)(const void *, const void *));

__attribute__((noinline)) unsigned long leaf_sort(int *v, size_t n, uint64_t budget,
						  int (*cmp)(const void *, const void *))
{
	static uint64_t shortest = UINT64_MAX;
	static uint32_t seed = 2463534242u;
	unsigned long rounds = 0;
	uint64_t spent = 0;

	while (spent < budget) {
		uint64_t t0 = UW_TICKS(), t;

		for (size_t i = 0; i < n; i++)
			v[i] = (int)(uw_rand(&seed) & 0xffff);
		qsort(v, n, sizeof(*v), cmp);
		t = UW_TICKS() - t0;
		if (t < shortest)
			shortest = t;
		spent += t < 2 * shortest ? t : 2 * shortest;
		rounds++;
	}
	return rounds;
}
