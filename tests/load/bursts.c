/* SPDX-License-Identifier: MIT */
/*
 * bursts.c - bursts of system calls at a known period: every P ms, B getppid
 * calls in a row, then sleep until the next period start; N periods.
 *
 * usage: bursts [-b B] [-p P_MS] [-n N] [-c CPU]
 *   -b  calls per burst (default 2000)
 *   -p  period in ms (default 20)
 *   -n  bursts (default 50)
 *   -c  pin to this CPU (default: not pinned)
 *
 * Last line on stderr (the ground truth):
 *   LOAD bursts calls=B*N burst=B period_ms=P bursts=N late=L pid=P
 * late: bursts that began more than 2 ms after their time, or ran into the next
 * period (a busy machine delayed the wake-up): their timing is not the load's.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] = "usage: bursts [-b B] [-p P_MS] [-n N] [-c CPU]\n";

int main(int argc, char **argv)
{
	unsigned long burst = 2000, period_ms = 20, n = 50;
	long cpu = -1;
	struct timespec next;
	int c;

	while ((c = getopt(argc, argv, "b:p:n:c:h")) != -1) {
		switch (c) {
		case 'b': burst = parse_ul(optarg, "-b"); break;
		case 'p': period_ms = parse_ul(optarg, "-p"); break;
		case 'n': n = parse_ul(optarg, "-n"); break;
		case 'c': cpu = (long)parse_ul(optarg, "-c"); break;
		case 'h': load_usage(usage, 0);
		default: load_usage(usage, 2);
		}
	}
	if (!period_ms)
		load_usage(usage, 2);
	if (cpu >= 0 && load_pin((int)cpu))
		perror("bursts: sched_setaffinity");
	unsigned long late = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (unsigned long i = 0; i < n; i++) {
		struct timespec t0, t1;
		long long due = (long long)next.tv_sec * 1000000000LL + next.tv_nsec, at, end;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (unsigned long k = 0; k < burst; k++)
			syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		at = (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec;
		end = (long long)t1.tv_sec * 1000000000LL + t1.tv_nsec;
		if (at - due > 2000000LL || end - due > (long long)period_ms * 1000000LL)
			late++;
		next.tv_nsec += (long)(period_ms % 1000) * 1000000L;
		next.tv_sec += (time_t)(period_ms / 1000);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	fprintf(stderr, "LOAD bursts calls=%lu burst=%lu period_ms=%lu bursts=%lu late=%lu pid=%d\n",
		burst * n, burst, period_ms, n, late, (int)getpid());
	return 0;
}
