/* SPDX-License-Identifier: MIT */
/*
 * load.h - what every load generator shares: the clock, number parsing, options and
 * usage, pinning to a CPU, and the CPU times of its LOAD line.
 *
 * Header-only so that each generator stays one C file built on its own.
 * Bad numbers are fatal with status 2, naming the program and the option.
 */
#ifndef PP_TESTS_LOAD_H
#define PP_TESTS_LOAD_H

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline unsigned long parse_ul(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "%s: bad %s '%s'\n", program_invocation_short_name, what, s);
		exit(2);
	}
	return v;
}

static inline double parse_num(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "%s: bad %s '%s'\n", program_invocation_short_name, what, s);
		exit(2);
	}
	return v;
}

/* -h (@status 0: on stdout) or a bad option (2: on stderr): the usage text, and exit. */
static inline _Noreturn void load_usage(const char *usage, int status)
{
	fputs(usage, status ? stderr : stdout);
	exit(status);
}

/*
 * The next option of a load's command line, as getopt_long() returns it (@opts may be NULL),
 * or -1 at the end.  -h and a bad option end the program here (load_usage()), and so do
 * operands after the options: no load takes any.
 */
static inline int load_getopt(int argc, char **argv, const char *optstring,
			      const struct option *opts, const char *usage)
{
	int opt = getopt_long(argc, argv, optstring, opts, NULL);

	if (opt == 'h')
		load_usage(usage, 0);
	if (opt == '?' || (opt == -1 && optind != argc))
		load_usage(usage, 2);
	return opt;
}

/* Pin the calling thread to @cpu: sched_setaffinity()'s result (-1 and errno on failure). */
static inline int load_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Seconds of a struct timeval (ru_utime, ru_stime). */
static inline double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

#endif
