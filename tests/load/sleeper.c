/* SPDX-License-Identifier: MIT */
/*
 * sleeper.c - a thread that sleeps a known number of times for a known time.
 *
 * The sleeps are the nanosleep system call itself (syscall(SYS_nanosleep), number 35 on
 * x86_64), not glibc's nanosleep(), which issues clock_nanosleep: a syscalls analyzer test
 * can then count exactly K calls of one syscall number.  An interrupted sleep is resumed with
 * the remaining time, which costs one more nanosleep call; `nanosleep=` counts the calls made.
 * Modes:
 *   sleep   K sleeps of D (default 10 ms)
 *   mixed   K iterations of { nanosleep(D, default 1 ms); getppid() }: K of each syscall
 *
 * usage: sleeper [-n K] [-s D] [-m sleep|mixed]
 *   -n, --count K    iterations (default 100)
 *   -s, --sleep D    sleep length: a number with ns/us/ms/s (bare: ms; default 10ms, mixed 1ms)
 *   -m, --mode M     sleep (default) or mixed
 *
 * Last line on stderr:
 *   LOAD sleeper mode=M n=K sleep_ns=D nanosleep=N getppid=N nanosleep_nr=35 getppid_nr=110
 *        pid=P tids=T ops=K wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#ifdef SYS_nanosleep
#define SLEEPER_NR SYS_nanosleep
#define SLEEPER_CALL(req, rem) syscall(SYS_nanosleep, (req), (rem))
#else	/* arm64 and other new ABIs only have clock_nanosleep */
#define SLEEPER_NR SYS_clock_nanosleep
#define SLEEPER_CALL(req, rem) syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (req), (rem))
#endif

static const char usage[] =
	"usage: sleeper [-n K] [-s D] [-m sleep|mixed]\n"
	"  -n, --count K    iterations (default 100)\n"
	"  -s, --sleep D    sleep length, ns/us/ms/s suffix (bare number: ms; default 10ms,\n"
	"                   1ms in mixed mode)\n"
	"  -m, --mode M     sleep: K nanosleep calls; mixed: K x { nanosleep; getppid }\n"
	"Prints 'LOAD sleeper mode= n= sleep_ns= nanosleep= getppid= ... tids= ...' on stderr.\n";

/* "10ms", "250us", "1.5s", "100ns", "20" (ms) -> ns; exits on junk */
static uint64_t parse_time_ns(const char *s)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e6 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].sfx))
			return (uint64_t)(v * units[i].mul + 0.5);
	}
bad:
	fprintf(stderr, "sleeper: bad time '%s'\n", s);
	exit(2);
}

/* one logical sleep; returns the number of nanosleep calls it took */
static unsigned long sleep_once(uint64_t ns)
{
	struct timespec req = { .tv_sec = (time_t)(ns / 1000000000u),
				.tv_nsec = (long)(ns % 1000000000u) };
	struct timespec rem;
	unsigned long calls = 1;

	while (SLEEPER_CALL(&req, &rem) != 0) {
		if (errno != EINTR) {
			fprintf(stderr, "sleeper: nanosleep: %s\n", strerror(errno));
			exit(1);
		}
		req = rem;
		calls++;
	}
	return calls;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "sleep", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 100, nr_sleeps = 0, nr_getppid = 0;
	uint64_t sleep_ns = 0;
	int mixed = 0, opt;
	struct rusage ru;
	double t0, wall;
	char *end;

	while ((opt = load_getopt(argc, argv, "n:s:m:h", opts, usage)) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			count = strtoul(optarg, &end, 0);
			if (errno || end == optarg || *end || *optarg == '-') {
				fprintf(stderr, "sleeper: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			sleep_ns = parse_time_ns(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "mixed")) {
				mixed = 1;
			} else if (strcmp(optarg, "sleep")) {
				fprintf(stderr, "sleeper: unknown mode '%s'\n", optarg);
				return 2;
			}
			break;
		}
	}
	if (!sleep_ns)
		sleep_ns = mixed ? 1000000 : 10000000;

	t0 = now_s();
	for (unsigned long i = 0; i < count; i++) {
		nr_sleeps += sleep_once(sleep_ns);
		if (mixed) {
			syscall(SYS_getppid);
			nr_getppid++;
		}
	}
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD sleeper mode=%s n=%lu sleep_ns=%llu nanosleep=%lu getppid=%lu "
		"nanosleep_nr=%d getppid_nr=%d pid=%d tids=%d ops=%lu wall_s=%.6f user_s=%.6f "
		"sys_s=%.6f\n", mixed ? "mixed" : "sleep", count, (unsigned long long)sleep_ns,
		nr_sleeps, nr_getppid, SLEEPER_NR, SYS_getppid, (int)getpid(),
		(int)syscall(SYS_gettid), count, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
