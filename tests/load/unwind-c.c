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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/load/load.h"
#include "tests/load/unwind/spin.h"

static const char usage[] =
	"usage: unwind-c [-d SECONDS] [-u UNIT_US]\n"
	"  -d, --duration S   run time in seconds (default 1)\n"
	"  -u, --unit-us U    slice unit in microseconds (default 50)\n"
	"Call chain main -> level1 -> level2 -> level3 -> leaf_sort (libunwindleaf.so) -> qsort\n"
	"-> cmp_int; self time 1:2:3:4, inclusive level1 100 %, level2 90 %, level3 70 %,\n"
	"leaf_sort 40 %.  Prints 'LOAD unwind-c ... ops= wall_s= user_s= sys_s=' on stderr.\n";

unsigned long leaf_sort(int *v, size_t n, uint64_t budget,
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
	unsigned long r = leaf_sort(array, sizeof(array) / sizeof(array[0]), slice(4), cmp_int);
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

/* clock ticks per microsecond, measured against CLOCK_MONOTONIC over 20 ms */
static double ticks_per_us(void)
{
	double t0 = now_s(), t1;
	uint64_t c0 = UW_TICKS();

	while ((t1 = now_s()) - t0 < 0.02)
		;
	return (double)(UW_TICKS() - c0) / ((t1 - t0) * 1e6);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "unit-us", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double duration = 1.0, unit_us = 50.0, t0, wall, tpu;
	unsigned long iters = 0, rounds = 0;
	uint64_t end;
	struct rusage ru;
	int opt;

	while ((opt = load_getopt(argc, argv, "d:u:h", opts, usage)) != -1) {
		switch (opt) {
		case 'd':
			duration = parse_num(optarg, "duration");
			break;
		case 'u':
			unit_us = parse_num(optarg, "unit");
			break;
		}
	}
	if (unit_us <= 0)
		load_usage(usage, 2);
	tpu = ticks_per_us();
	unit_ticks = (uint64_t)(tpu * unit_us);
	if (!unit_ticks)
		unit_ticks = 1;
	gap_ticks = (uint64_t)(tpu * UW_GAP_US);

	t0 = now_s();
	end = UW_TICKS() + (uint64_t)(duration * 1e6 * tpu);
	do {
		rounds += level1();
		iters++;
	} while (UW_TICKS() < end);
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD unwind-c duration_s=%.3f unit_us=%.1f iters=%lu "
		"incl_pct=level1:100,level2:90,level3:70,leaf_sort:40 pid=%d tids=%d "
		"ops=%lu wall_s=%.6f user_s=%.6f sys_s=%.6f\n", duration, unit_us, iters,
		(int)getpid(), (int)syscall(SYS_gettid), rounds, wall, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
