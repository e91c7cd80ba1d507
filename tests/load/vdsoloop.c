/* SPDX-License-Identifier: MIT */
/*
 * vdsoloop.c - clock_gettime() in a loop: nearly all the time in the vDSO.
 *
 * For the vDSO's symbols and unwind table in a capture: a profile of this program has its
 * top frames in [vdso] (__vdso_clock_gettime), called from read_clocks(), a noinline
 * function with a stable name.
 *
 * usage: vdsoloop [-d SECONDS]
 *   -d, --duration S   how long to loop (default 2)
 *
 * Last line on stderr:
 *   LOAD vdsoloop duration_s=S calls=N pid=P wall_s=S user_s=S sys_s=S
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] =
	"usage: vdsoloop [-d SECONDS]\n"
	"  -d, --duration S   how long to call clock_gettime() in a loop (default 2)\n"
	"Prints 'LOAD vdsoloop duration_s= calls= pid= wall_s= user_s= sys_s=' on stderr.\n";

void read_clocks(unsigned long n, struct timespec *ts);

/* @n clock reads: the vDSO does the work, this frame calls it. */
__attribute__((noinline)) void read_clocks(unsigned long n, struct timespec *ts)
{
	for (unsigned long i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, ts);
}

static const struct option long_opts[] = {
	{ "duration", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { 0 },
};

int main(int argc, char **argv)
{
	double duration = 2, t0, t1;
	struct timespec ts;
	unsigned long calls = 0;
	struct rusage ru;

	for (int opt; (opt = load_getopt(argc, argv, "d:h", long_opts, usage)) != -1;)
		if (opt == 'd')
			duration = parse_num(optarg, "duration");
	t0 = now_s();
	do {
		read_clocks(100000, &ts);
		calls += 100000;
		t1 = now_s();
	} while (t1 - t0 < duration);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD vdsoloop duration_s=%.3f calls=%lu pid=%d wall_s=%.3f user_s=%.3f "
		"sys_s=%.3f\n", duration, calls, (int)getpid(), t1 - t0, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
