/* SPDX-License-Identifier: MIT */
/*
 * fpless.c - a call tree built without frame pointers, for --call-graph dwarf.
 *
 * Built -O2 -fomit-frame-pointer (Makefile), as distributions build: a frame-pointer walk
 * loses the callers, a DWARF unwind from a copy of the stack finds them all:
 *
 *   main -> fpl_level1 -> fpl_level2 -> fpl_level3 -> qsort (libc) -> fpl_cmp (a callback)
 *
 * Each level does a little work after its call, so no call is a tail call that would drop
 * the caller from the stack.  With -s, fpl_level3 sleeps (nanosleep) instead of sorting: the
 * off-CPU stacks of sched_switch then end in that chain.
 *
 * usage: fpless [-d SECONDS] [-s]
 *   -d, --duration S   run time in seconds, fractions allowed (default 1)
 *   -s, --sleep        sleep 1 ms a round instead of sorting
 *
 * Last line on stderr: LOAD fpless duration_s=S rounds=N pid=P
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] =
	"usage: fpless [-d SECONDS] [-s]\n"
	"  -d, --duration S   run time in seconds (default 1)\n"
	"  -s, --sleep        sleep 1 ms a round instead of sorting\n"
	"Call tree main -> fpl_level1 -> fpl_level2 -> fpl_level3 -> qsort -> fpl_cmp,\n"
	"built without frame pointers.  Prints 'LOAD fpless ...' on stderr.\n";

#define NR_KEYS 4096

static uint32_t keys[NR_KEYS];
static uint32_t seed = 2463534242u;
static int sleeping;
volatile uint64_t fpl_sink;

/* Global, so tests find them by name. */
int fpl_cmp(const void *a, const void *b);
uint64_t fpl_level1(int round);
uint64_t fpl_level2(int round);
uint64_t fpl_level3(int round);

__attribute__((noinline)) int fpl_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) uint64_t fpl_level3(int round)
{
	if (sleeping) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	} else {
		for (int i = 0; i < NR_KEYS; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 17;
			seed ^= seed << 5;
			keys[i] = seed;
		}
		qsort(keys, NR_KEYS, sizeof(keys[0]), fpl_cmp);
	}
	return keys[round % NR_KEYS] + 3;
}

__attribute__((noinline)) uint64_t fpl_level2(int round)
{
	uint64_t v = fpl_level3(round);

	fpl_sink += v;
	return v * 3 + 2;
}

__attribute__((noinline)) uint64_t fpl_level1(int round)
{
	uint64_t v = fpl_level2(round);

	fpl_sink += v;
	return v * 5 + 1;
}

int main(int argc, char **argv)
{
	double duration = 1, start;
	int c, rounds = 0;

	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "sleep", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = load_getopt(argc, argv, "d:sh", opts, usage)) != -1) {
		if (c == 'd')
			duration = parse_num(optarg, "duration");
		else if (c == 's')
			sleeping = 1;
	}
	start = now_s();
	while (now_s() - start < duration) {
		fpl_sink += fpl_level1(rounds);
		rounds++;
	}
	fprintf(stderr, "LOAD fpless duration_s=%g rounds=%d pid=%d\n", duration, rounds,
		(int)getpid());
	return 0;
}
