/* SPDX-License-Identifier: MIT */
/*
 * heap.c - how pp-analyze's heap grows: in large steps, kept, and in transparent huge pages
 * where the kernel offers them.
 *
 * An analysis fills its tables once and keeps them (64,000 kernel symbols, the binaries'
 * symbols and unwind rows, the stacks seen): thousands of first touches of a page, each a
 * page fault, and on a VM a fault costs 10-15 us (4,500 of them in a 0.28 s `profile -g` of
 * 400,000 DWARF stacks; 6,800 with -j 2, whose threads have arenas of their own).  So:
 *  - glibc's malloc is told to keep what it has: a 64 MB top pad, 128 MB kept when freed,
 *    blocks up to 32 MB from the heap rather than from mappings of their own (which glibc
 *    maps, faults in and unmaps afresh each time).  It would grow and trim a worker's arena
 *    by a little at a time, and every change to the mappings of a process with threads on
 *    two CPUs interrupts the other one to flush its TLB (541 such interrupts for that -j 2
 *    run; 42 with these).
 *  - The heap is marked MADV_HUGEPAGE, so that one fault maps 2 MB: what glibc's
 *    glibc.malloc.hugetlb=1 tunable does, which only a process's starting environment sets.
 *    The main arena grows by brk: it is grown by the pad at once and marked (its later
 *    growth is a new mapping, unmarked); a thread's arena is a 64 MB aligned mapping (glibc's
 *    HEAP_MAX_SIZE on 64-bit hosts), marked whole when the thread starts.  1,200 faults
 *    instead of 4,500, 2,200 instead of 6,800 (docs/performance.md).  Marking is a hint:
 *    without THP (`never`, an old kernel) nothing changes.  PP_HUGEPAGES=0 marks the heap
 *    MADV_NOHUGEPAGE instead: small pages even where the kernel's mode is `always`.
 * A sanitizer's allocator has no brk heap and no arenas: nothing is done under ASan.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/internal.h"

#define HEAP_PAD (64u << 20)		/* the top pad */
#define HEAP_TRIM (128u << 20)		/* kept when freed */
#define HEAP_MMAP (32u << 20)		/* blocks from the heap up to this size */
#define ARENA_SIZE (64ul << 20)		/* glibc's HEAP_MAX_SIZE: a thread arena's mapping */
#define HUGE_SZ (2ul << 20)

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_SANITIZED 1
#endif
#endif

static int advice;			/* MADV_HUGEPAGE or MADV_NOHUGEPAGE; 0: none given */

void ana_heap_init(void)
{
#ifndef HEAP_SANITIZED
	const char *e = getenv("PP_HUGEPAGES");
	int adv = e && !strcmp(e, "0") ? MADV_NOHUGEPAGE : MADV_HUGEPAGE;

	mallopt(M_MMAP_THRESHOLD, HEAP_MMAP);
	mallopt(M_TOP_PAD, HEAP_PAD);
	mallopt(M_TRIM_THRESHOLD, HEAP_TRIM);
	/* grow the brk heap by the pad now (a block the heap holds), and mark it from there */
	void *p = malloc(HUGE_SZ);
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
	uintptr_t hi = (uintptr_t)sbrk(0);

	free(p);
	if (p && hi > lo && hi - lo <= 4 * (uintptr_t)HEAP_PAD &&
	    madvise((void *)lo, hi - lo, adv) == 0)
		advice = adv;
#endif
}

void ana_heap_thread(void)
{
	if (!advice)
		return;
	void *p = malloc(64);
	uintptr_t base = (uintptr_t)p & ~(ARENA_SIZE - 1);

	/* an arena's first block is near its start; one of the main arena's is marked already */
	if (p && (uintptr_t)p - base < HUGE_SZ)
		madvise((void *)base, ARENA_SIZE, advice);
	free(p);
}
