/* SPDX-License-Identifier: MIT */
/*
 * splitlock.c - split locks: locked adds on 8 bytes that straddle two cache lines.
 *
 * perf-prof's `split-lock --test` runs such a loop inside perf-prof; pp starts
 * no load of its own, so this is the command to give instead:
 *   pp split-lock -i 1000 -- build/load/splitlock 5
 * Each `lock addq` on the straddling word is one split lock for the CPU's
 * counter (Intel SQ_MISC.SPLIT_LOCK, AMD LsLocks.BusLock).  A kernel with
 * split_lock_detect=warn slows a task that takes them (one warning, then a
 * delay per lock), so the count per second depends on the machine.  x86 only.
 *
 * usage: splitlock [SECONDS]   (default 1)
 * Then on stderr: LOAD splitlock locks=N wall_s=S
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/load/load.h"

int main(int argc, char **argv)
{
	double secs, start;
	unsigned long locks = 0;
	uint8_t *page;

	if (argc > 2 || (argc > 1 && argv[1][0] == '-'))
		load_usage("usage: splitlock [SECONDS]\n", !strcmp(argv[1], "-h") ? 0 : 2);
	secs = argc > 1 ? parse_num(argv[1], "seconds") : 1.0;
	start = now_s();
#if defined(__x86_64__) || defined(__i386__)
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("splitlock: mmap");
		return 1;
	}
	/* 62 bytes in: the word's first 2 bytes end one cache line, its last 6 start the next */
	volatile uint64_t *word = (volatile uint64_t *)(page + 62);

	while (now_s() - start < secs) {
		for (int i = 0; i < 1000; i++)
			__asm__ __volatile__("lock addq $1, %0" : "+m"(*word));
		locks += 1000;
	}
	fprintf(stderr, "LOAD splitlock locks=%lu wall_s=%.3f\n", locks, now_s() - start);
	return 0;
#else
	(void)page;
	(void)secs;
	(void)start;
	(void)locks;
	fprintf(stderr, "splitlock: split locks are an x86 thing\n");
	return 2;
#endif
}
