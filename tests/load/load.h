/* SPDX-License-Identifier: MIT */
/*
 * load.h - what every load generator shares: the clock, number parsing, and
 * the CPU times of its LOAD line.
 *
 * Header-only so that each generator stays one C file built on its own.
 * Bad numbers are fatal with status 2, naming the program and the option.
 */
#ifndef PP_TESTS_LOAD_H
#define PP_TESTS_LOAD_H

#include <errno.h>
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

/* Seconds of a struct timeval (ru_utime, ru_stime). */
static inline double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

#endif
