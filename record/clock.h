/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the capture's clock: CLOCK_MONOTONIC in ns.
 *
 * Perf events are stamped on it (use_clockid), the tracefs instance is mapped
 * to it (ftrace/clocksync.h), and the session, the counters' timer and -v's
 * intervals read it here.
 */
#ifndef PP_RECORD_CLOCK_H
#define PP_RECORD_CLOCK_H

#include <stdint.h>
#include <time.h>

/** rec_now_ns() - CLOCK_MONOTONIC in ns (the capture's clock). */
static inline uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
