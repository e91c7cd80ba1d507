/* SPDX-License-Identifier: MIT */
/*
 * cpuburn.c - CPU burner with a known call tree, for profiler ground truth.
 *
 * The tree, run over and over for --duration seconds (one call of burn_a = one iteration):
 *
 *   main -> burn_a -> burn_b -> burn_c
 *                  -> burn_d
 *
 * Each function spins on the clock for its own slice before calling its children; slices are
 * a 1 : b 2 : c 4 : d 1 units of --unit-us, so the self-time shares are, by construction,
 *   burn_a 12.5 %, burn_b 25 %, burn_c 50 %, burn_d 12.5 %
 * and the inclusive (children) shares burn_a 100 %, burn_b 75 %, burn_c 50 %, burn_d 12.5 %.
 * Spinning on the clock, not on a loop count, is what makes this hold: the same loop runs at
 * different speeds in different functions (alignment, frequency).  The spin is expanded inside
 * each function (a macro), so its samples land there; on x86 it reads the TSC inline, elsewhere
 * it polls CLOCK_MONOTONIC between blocks of arithmetic, which puts a few percent of the
 * samples into the vDSO.  Time the burner does not run does not count toward its slice: a
 * gap of over GAP_US between two clock reads (it was preempted, a long interrupt, its vCPU was
 * descheduled) moves the slice's end by the gap, so a slice is that much time on the CPU and
 * the shares hold beside other loads (else a preemption cuts short the slice it lands in, and
 * long slices are hit more often).  Each slice is scaled by a pseudo-random factor in
 * [0.5, 1.5) (fixed seed) so that the iteration period cannot alias with a sampling period.
 * ops in the LOAD line = clock polls done: since the duration is fixed, a profiler's overhead
 * shows as fewer ops, not as a longer run.
 *
 * usage: cpuburn [-d SECONDS] [-u UNIT_US] [-c CPU]
 *   -d, --duration S   run time in seconds, fractions allowed (default 1)
 *   -u, --unit-us U    one slice unit in microseconds (default 50; an iteration is 8 units)
 *   -c, --cpu C        pin to CPU C (default: not pinned)
 *
 * Last line on stderr:
 *   LOAD cpuburn duration_s=S unit_us=U iters=N self_pct=burn_a:12.5,burn_b:25,burn_c:50,
 *        burn_d:12.5 cpu=C pid=P tids=T ops=N wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
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

#include "tests/load/load.h"
#define CPUBURN_TSC 1
#endif

static const char usage[] =
	"usage: cpuburn [-d SECONDS] [-u UNIT_US] [-c CPU]\n"
	"  -d, --duration S   run time in seconds (default 1)\n"
	"  -u, --unit-us U    slice unit in microseconds (default 50)\n"
	"  -c, --cpu C        pin to CPU C (default: not pinned)\n"
	"Call tree main -> burn_a -> {burn_b -> burn_c, burn_d}; self time a:b:c:d = 1:2:4:1\n"
	"(12.5/25/50/12.5 %).  Prints 'LOAD cpuburn ... ops= wall_s= user_s= sys_s=' on stderr.\n";

/* A gap between two clock reads longer than this is time off the CPU (a read takes < 1 us). */
#define GAP_US 10

/* Test program state: the clock rate, the gap threshold, the jitter generator, the polls. */
static uint64_t unit_ticks, gap_ticks;
static uint32_t jitter_state = 2463534242u;
static unsigned long nr_polls;
static volatile unsigned int spin_sink;

#ifdef CPUBURN_TSC
#define CLOCK_TICKS() ((uint64_t)__rdtsc())
#else
/* always_inline: with -fno-inline a plain helper would own part of every slice */
static inline __attribute__((always_inline)) uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define CLOCK_TICKS() mono_ns()
#endif

/*
 * SPIN(units) - burn units * unit_ticks * [0.5, 1.5) clock ticks in the calling function.
 * A macro on purpose: a helper function would own the samples.  The inner block of 64 cheap
 * steps between clock reads matters only for the non-TSC build.  polls_ is a volatile local
 * on purpose too: it gives the leaves burn_c and burn_d a stack frame, without which gcc 12
 * sets up no frame pointer in them even under -fno-omit-frame-pointer, and a frame-pointer
 * unwinder would then skip their caller (burn_c's samples would show burn_a -> burn_c).
 */
#define SPIN(units)								\
	do {									\
		uint64_t end_, scale_, now_, last_;				\
		volatile unsigned long polls_ = 0;				\
		jitter_state ^= jitter_state << 13;				\
		jitter_state ^= jitter_state >> 17;				\
		jitter_state ^= jitter_state << 5;				\
		scale_ = 512 + (jitter_state & 1023);	/* /1024: [0.5, 1.5) */	\
		last_ = CLOCK_TICKS();						\
		end_ = last_ + (units) * unit_ticks * scale_ / 1024;		\
		while ((now_ = CLOCK_TICKS()) < end_) {				\
			if (now_ - last_ > gap_ticks)	/* off the CPU */	\
				end_ += now_ - last_;				\
			last_ = now_;						\
			for (int k_ = 0; k_ < 64; k_++)				\
				spin_sink += (unsigned int)k_;			\
			polls_++;						\
		}								\
		nr_polls += polls_;						\
	} while (0)

/* Global, so tests find them by name in the symbol table and in stacks. */
void burn_a(void);
void burn_b(void);
void burn_c(void);
void burn_d(void);

__attribute__((noinline)) void burn_c(void)
{
	SPIN(4);
}

__attribute__((noinline)) void burn_d(void)
{
	SPIN(1);
}

__attribute__((noinline)) void burn_b(void)
{
	SPIN(2);
	burn_c();
}

__attribute__((noinline)) void burn_a(void)
{
	SPIN(1);
	burn_b();
	burn_d();
}

/* clock ticks per microsecond, measured against CLOCK_MONOTONIC over 20 ms */
static double ticks_per_us(void)
{
#ifdef CPUBURN_TSC
	double t0 = now_s(), t1;
	uint64_t c0 = CLOCK_TICKS();

	while ((t1 = now_s()) - t0 < 0.02)
		;
	return (CLOCK_TICKS() - c0) / ((t1 - t0) * 1e6);
#else
	return 1000.0;
#endif
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "unit-us", required_argument, NULL, 'u' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double duration = 1.0, unit_us = 50.0, t0, wall, tpu;
	unsigned long iters = 0;
	struct rusage ru;
	int cpu = -1, opt;

	while ((opt = load_getopt(argc, argv, "d:u:c:h", opts, usage)) != -1) {
		switch (opt) {
		case 'd':
			duration = parse_num(optarg, "duration");
			break;
		case 'u':
			unit_us = parse_num(optarg, "unit");
			break;
		case 'c':
			cpu = (int)parse_num(optarg, "cpu");
			break;
		}
	}
	if (unit_us <= 0)
		load_usage(usage, 2);
	if (cpu >= 0 && load_pin(cpu)) {
		fprintf(stderr, "cpuburn: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	tpu = ticks_per_us();
	unit_ticks = (uint64_t)(tpu * unit_us);
	if (!unit_ticks)
		unit_ticks = 1;
	gap_ticks = (uint64_t)(tpu * GAP_US);

	t0 = now_s();
	do {
		burn_a();
		iters++;
	} while (now_s() - t0 < duration);
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD cpuburn duration_s=%.3f unit_us=%.1f iters=%lu "
		"self_pct=burn_a:12.5,burn_b:25,burn_c:50,burn_d:12.5 cpu=%d pid=%d tids=%d "
		"ops=%lu wall_s=%.6f user_s=%.6f sys_s=%.6f\n", duration, unit_us, iters, cpu,
		(int)getpid(), (int)syscall(SYS_gettid), nr_polls, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
