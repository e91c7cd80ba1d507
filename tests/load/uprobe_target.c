/* SPDX-License-Identifier: MIT */
/*
 * uprobe_target.c - a function called exactly K times and a variable written exactly K times.
 *
 * pp_probe_target(int) is a global, noinline (and on gcc noipa, so no .constprop/.isra clone
 * takes its calls) function: a uprobe on the symbol pp_probe_target fires exactly K times,
 * with arguments 0, 1, ..., K-1 (arg_sum = K*(K-1)/2).  pp_watch_var is a global, 8-byte
 * aligned volatile long that the loop only ever stores to (values 1..K, never read), so a
 * write or read-write hardware breakpoint on its address fires exactly K times.  Before the
 * loop the program prints one line on stdout (flushed) with its pid and both run-time
 * addresses, then waits --delay ms so that a tracer can attach by pid.
 *
 * usage: uprobe_target [-n K] [-p US] [-d MS] [-m both|call|write]
 *   -n, --count K     iterations (default 1000)
 *   -p, --pause US    microseconds to sleep after each iteration (default 0: none)
 *   -d, --delay MS    milliseconds to wait after printing the READY line (default 0)
 *   -m, --mode M      both (default): call and write; call: only calls; write: only writes
 *
 * First line on stdout:
 *   READY pid=P pp_probe_target=0xADDR pp_watch_var=0xADDR
 * Last line on stderr:
 *   LOAD uprobe_target mode=M calls=K writes=K arg_sum=S pp_probe_target=0xADDR
 *        pp_watch_var=0xADDR pid=P tids=T ops=K wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#if defined(__clang__)
#define UPROBE_TARGET_ATTR __attribute__((noinline, used))
#else
#define UPROBE_TARGET_ATTR __attribute__((noinline, noipa, used))
#endif

static const char usage[] =
	"usage: uprobe_target [-n K] [-p US] [-d MS] [-m both|call|write]\n"
	"  -n, --count K     iterations (default 1000)\n"
	"  -p, --pause US    sleep US microseconds after each iteration (default 0)\n"
	"  -d, --delay MS    wait MS milliseconds after the READY line (default 0)\n"
	"  -m, --mode M      both (default), call (pp_probe_target only) or write\n"
	"                    (pp_watch_var only)\n"
	"Prints 'READY pid= pp_probe_target=0x.. pp_watch_var=0x..' on stdout first and\n"
	"'LOAD uprobe_target ... calls= writes= ...' on stderr at the end.\n";

volatile long pp_watch_var __attribute__((aligned(8)));
/* written only by pp_probe_target, read once at the end */
static volatile long probe_sink;

/* Global: the uprobe is placed on it by name. */
int pp_probe_target(int arg);

UPROBE_TARGET_ATTR int pp_probe_target(int arg)
{
	probe_sink += arg;
	return arg + 1;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "pause", required_argument, NULL, 'p' },
		{ "delay", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 1000, pause_us = 0, delay_ms = 0, calls = 0, writes = 0;
	int do_call = 1, do_write = 1, opt;
	const char *mode = "both";
	struct rusage ru;
	double t0, wall;

	while ((opt = load_getopt(argc, argv, "n:p:d:m:h", opts, usage)) != -1) {
		switch (opt) {
		case 'n':
			count = parse_ul(optarg, "count");
			break;
		case 'p':
			pause_us = parse_ul(optarg, "pause");
			break;
		case 'd':
			delay_ms = parse_ul(optarg, "delay");
			break;
		case 'm':
			mode = optarg;
			do_call = !strcmp(mode, "both") || !strcmp(mode, "call");
			do_write = !strcmp(mode, "both") || !strcmp(mode, "write");
			if (!do_call && !do_write) {
				fprintf(stderr, "uprobe_target: unknown mode '%s'\n", mode);
				return 2;
			}
			break;
		}
	}
	if (count > 0x7fffffffUL)
		load_usage(usage, 2);

	printf("READY pid=%d pp_probe_target=%p pp_watch_var=%p\n", (int)getpid(),
	       (void *)pp_probe_target, (void *)&pp_watch_var);
	fflush(stdout);
	if (delay_ms)
		sleep_us(delay_ms * 1000);

	t0 = now_s();
	for (unsigned long i = 0; i < count; i++) {
		if (do_call) {
			pp_probe_target((int)i);
			calls++;
		}
		if (do_write) {
			pp_watch_var = (long)i + 1;
			writes++;
		}
		if (pause_us)
			sleep_us(pause_us);
	}
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD uprobe_target mode=%s calls=%lu writes=%lu arg_sum=%ld "
		"pp_probe_target=%p pp_watch_var=%p pid=%d tids=%d ops=%lu wall_s=%.6f "
		"user_s=%.6f sys_s=%.6f\n", mode, calls, writes, probe_sink,
		(void *)pp_probe_target, (void *)&pp_watch_var, (int)getpid(),
		(int)syscall(SYS_gettid), count, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
