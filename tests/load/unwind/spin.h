/* SPDX-License-Identifier: MIT */
/*
 * spin.h - what the unwind-c and unwind-cxx loads and their libraries share (C and C++;
 * header-only, each binary gets its own copy): the clock, the spin, the sort rounds of the
 * libraries, the command line and the LOAD line.
 *
 * UW_SPIN(ticks) burns @ticks clock ticks of CPU time in the function that expands it: a
 * gap of over UW_GAP_US between two clock reads is time off the CPU (preempted, a long
 * interrupt) and moves the end by the gap, so a slice is that much time on the CPU and the
 * shares hold on a busy machine.  On x86 the clock is the TSC read inline; elsewhere
 * CLOCK_MONOTONIC (through the vDSO: a few percent of the samples land there).
 */
#ifndef PP_TESTS_UNWIND_SPIN_H
#define PP_TESTS_UNWIND_SPIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UW_TICKS() ((uint64_t)__rdtsc())
#else
#define UW_TICKS() __extension__({						\
		struct timespec uw_ts_;						\
		clock_gettime(CLOCK_MONOTONIC, &uw_ts_);			\
		(uint64_t)uw_ts_.tv_sec * 1000000000u + (uint64_t)uw_ts_.tv_nsec; })
#endif

/* A gap between two clock reads longer than this is time off the CPU. */
#define UW_GAP_US 10

#define UW_SPIN(ticks, gap_ticks, sink)						\
	do {									\
		uint64_t uw_last_ = UW_TICKS(), uw_now_;			\
		uint64_t uw_end_ = uw_last_ + (ticks);				\
		while ((uw_now_ = UW_TICKS()) < uw_end_) {			\
			if (uw_now_ - uw_last_ > (gap_ticks))			\
				uw_end_ += uw_now_ - uw_last_;			\
			uw_last_ = uw_now_;					\
			for (int uw_k_ = 0; uw_k_ < 64; uw_k_++)		\
				(sink) += (unsigned int)uw_k_;			\
		}								\
	} while (0)

/* xorshift32: the slices' jitter and the arrays' contents (fixed seeds, repeatable) */
static inline uint32_t uw_rand(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}


/* What leaf_sort keeps between its calls (uw_sort_rounds()). */
struct uw_sort_state {
	uint64_t shortest;	/* the shortest round seen, in ticks */
	int64_t owed;		/* the last calls' overshoot of their budgets, in ticks */
	uint32_t seed;		/* the arrays' contents */
};

#define UW_SORT_STATE_INIT { UINT64_MAX, 0, 2463534242u }

/*
 * The body of leaf_sort in both libraries: fill @v (@n ints) and qsort() it with @cmp, round
 * after round, until @budget ticks of CPU time are spent.  A round that took over @gap ticks
 * more than the shortest seen was interrupted or preempted, as UW_SPIN's gaps: it counts as
 * the shortest.  The last round overshoots the budget by up to a round (a large part of it
 * when the rounds are slow, as under a sanitizer); the overshoot is owed and taken from the
 * next call's budget, so that the function's share over many calls is its budgets' share.
 * always_inline: the time is the library function's.
 * Return: the rounds.
 */
static inline __attribute__((always_inline)) unsigned long
uw_sort_rounds(int *v, size_t n, uint64_t budget, uint64_t gap,
	       int (*cmp)(const void *, const void *), struct uw_sort_state *st)
{
	int64_t want = (int64_t)budget - st->owed, spent = 0;
	unsigned long rounds = 0;

	while (spent < want) {
		uint64_t t0 = UW_TICKS(), t;

		for (size_t i = 0; i < n; i++)
			v[i] = (int)(uw_rand(&st->seed) & 0xffff);
		qsort(v, n, sizeof(*v), cmp);
		t = UW_TICKS() - t0;
		if (t < st->shortest)
			st->shortest = t;
		spent += (int64_t)(t - st->shortest > gap ? st->shortest : t);
		rounds++;
	}
	st->owed = spent - want;
	return rounds;
}

static inline double uw_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* clock ticks per microsecond, measured against CLOCK_MONOTONIC over 20 ms */
static inline double uw_ticks_per_us(void)
{
	double t0 = uw_now_s(), t1;
	uint64_t c0 = UW_TICKS();

	while ((t1 = uw_now_s()) - t0 < 0.02)
		;
	return (double)(UW_TICKS() - c0) / ((t1 - t0) * 1e6);
}

/* The clock's rate (returned, ticks per us), @unit_us and UW_GAP_US in ticks. */
static inline double uw_clock_setup(double unit_us, uint64_t *unit_ticks, uint64_t *gap_ticks)
{
	double tpu = uw_ticks_per_us();

	*unit_ticks = (uint64_t)(tpu * unit_us) ? (uint64_t)(tpu * unit_us) : 1;
	*gap_ticks = (uint64_t)(tpu * UW_GAP_US);
	return tpu;
}

/*
 * The command line of @name: [-d|--duration S] [-u|--unit-us U] [-h|--help]; -h prints
 * @usage and exits 0, anything else wrong prints it on stderr and exits 2.
 */
static inline void uw_args(int argc, char **argv, const char *name, const char *usage,
			   double *duration, double *unit_us)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int d = !strcmp(a, "-d") || !strcmp(a, "--duration");
		int u = !strcmp(a, "-u") || !strcmp(a, "--unit-us");
		char *end;
		double v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		}
		if ((!d && !u) || i + 1 >= argc) {
			fputs(usage, stderr);
			exit(2);
		}
		v = strtod(argv[++i], &end);
		if (end == argv[i] || *end || v < 0 || (u && v <= 0)) {
			fprintf(stderr, "%s: bad %s '%s'\n", name, d ? "duration" : "unit", argv[i]);
			exit(2);
		}
		*(d ? duration : unit_us) = v;
	}
}

/* The LOAD line on stderr, with the process's CPU times. */
static inline void uw_report(const char *name, double duration, double unit_us,
			     unsigned long iters, unsigned long ops, double wall)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD %s duration_s=%.3f unit_us=%.1f iters=%lu "
		"incl_pct=level1:100,level2:90,level3:70,leaf_sort:40 pid=%d tids=%d "
		"ops=%lu wall_s=%.6f user_s=%.6f sys_s=%.6f\n", name, duration, unit_us, iters,
		(int)getpid(), (int)syscall(SYS_gettid), ops, wall,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6);
}

#endif
