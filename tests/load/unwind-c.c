/* SPDX-License-Identifier: MIT */
/*
 * unwind-c.c - a program without frame pointers whose call stacks and time split are known,
 * for DWARF unwinding ground truth (built -O2 -fomit-frame-pointer -g, as distributions build).
 *
 * The call chain, run over and over for --duration seconds:
 *
 *   main -> level1 -> level2 -> level3 -> leaf_sort (libunwindleaf.so, beside the program,
 *                                          found through the rpath $ORIGIN)
 *                                          -> qsort (libc) -> cmp_int (this program)
 *
 * Self time, in units of --unit-us: level1 1, level2 2, level3 3, leaf_sort with qsort and
 * cmp_int 4; so the self shares are level1 10 %, level2 20 %, level3 30 %, leaf_sort and below
 * 40 %, and the inclusive shares level1 100 %, level2 90 %, level3 70 %, leaf_sort 40 %.
 * Every level spins for its slice before calling the next and uses the result after it (no
 * tail calls; noinline: every frame exists).  Each slice is scaled by a pseudo-random factor
 * in [0.5, 1.5) so that the iteration period cannot alias with a sampling period.
 *
 * usage: unwind-c [-d SECONDS] [-u UNIT_US]
 * Last line on stderr:
 *   LOAD unwind-c duration_s=S unit_us=U iters=N
 *        incl_pct=level1:100,level2:90,level3:70,leaf_sort:40 pid=P tids=T ops=N wall_s=S
 *        user_s=S sys_s=S
 */
#include "tests/load/unwind/spin.h"

static const char usage[] =
	"usage: unwind-c [-d SECONDS] [-u UNIT_US]\n"
	"  -d, --duration S   run time in seconds (default 1)\n"
	"  -u, --unit-us U    slice unit in microseconds (default 50)\n"
	"Call chain main -> level1 -> level2 -> level3 -> leaf_sort (libunwindleaf.so) -> qsort\n"
	"-> cmp_int; self time 1:2:3:4, inclusive level1 100 %, level2 90 %, level3 70 %,\n"
	"leaf_sort 40 %.  Prints 'LOAD unwind-c ... ops= wall_s= user_s= sys_s=' on stderr.\n";

unsigned long leaf_sort(int *v, size_t n, uint64_t budget, uint64_t gap,
			int (*cmp)(const void *, const void *));

/* Global, so tests find them by name; the library calls cmp_int back through qsort. */
int cmp_int(const void *a, const void *b);
unsigned long level1(void);
unsigned long level2(void);
unsigned long level3(void);

static uint64_t unit_ticks, gap_ticks;
static uint32_t jitter = 2463534242u;
static volatile unsigned int sink;
static int array[256];

/* @units of unit_ticks, scaled by [0.5, 1.5) */
static uint64_t slice(unsigned units)
{
	return units * unit_ticks * (512 + (uw_rand(&jitter) & 1023)) / 1024;
}

__attribute__((noinline)) int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) unsigned long level3(void)
{
	UW_SPIN(slice(3), gap_ticks, sink);
	unsigned long r = leaf_sort(array, sizeof(array) / sizeof(array[0]), slice(4), gap_ticks,
				    cmp_int);
	sink += (unsigned int)r;
	return r;
}

__attribute__((noinline)) unsigned long level2(void)
{
	UW_SPIN(slice(2), gap_ticks, sink);
	unsigned long r = level3();
	sink += (unsigned int)r;
	return r;
}

__attribute__((noinline)) unsigned long level1(void)
{
	UW_SPIN(slice(1), gap_ticks, sink);
	unsigned long r = level2();
	sink += (unsigned int)r;
	return r;
}

int main(int argc, char **argv)
{
	double duration = 1.0, unit_us = 50.0, t0, tpu;
	unsigned long iters = 0, rounds = 0;
	uint64_t end;

	uw_args(argc, argv, "unwind-c", usage, &duration, &unit_us);
	tpu = uw_clock_setup(unit_us, &unit_ticks, &gap_ticks);
	t0 = uw_now_s();
	end = UW_TICKS() + (uint64_t)(duration * 1e6 * tpu);
	do {
		rounds += level1();
		iters++;
	} while (UW_TICKS() < end);
	uw_report("unwind-c", duration, unit_us, iters, rounds, uw_now_s() - t0);
	return 0;
}
