/* SPDX-License-Identifier: MIT */
/*
 * spin.h - the clock and the spin of the unwind-c and unwind-cxx loads and their libraries
 * (C and C++; header-only, each binary gets its own copy).
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
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UW_TICKS() ((uint64_t)__rdtsc())
#else
static inline __attribute__((always_inline)) uint64_t uw_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define UW_TICKS() uw_mono_ns()
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

#endif
