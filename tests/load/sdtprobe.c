/* SPDX-License-Identifier: MIT */
/*
 * sdtprobe.c - USDT probes (Debian's <sys/sdt.h>) that fire exactly K times with known values.
 *
 * Probes, all of provider "sdtprobe" (every probe has a semaphore, as dtrace -G makes them):
 *   start            no arguments, fired once before the loop
 *   fire(i, v, s)    int i = 0..K-1, long v = i * 1000 - 7, char *s = "sdt-<i>",
 *                    fired K times
 *   guarded(i)       unsigned char i & 0xff (an 8-bit argument), fired only while its
 *                    semaphore is non-zero: the kernel raises it when a uprobe created with
 *                    the semaphore's file offset is enabled, so it counts only if the
 *                    offset given to the kernel was right
 *   stop(n)          long n = K, fired once after the loop
 * The LOAD line gives each semaphore's value as the loop ended (sem_NAME=): a tracer that
 * enabled a probe raised its semaphore, and only its (the file offset it was given was
 * that semaphore's).
 * The values are computed at run time and passed through registers, so the argument specs
 * are register and memory operands (-4@%edi, 8@%rax, -8@-16(%rbp) ...), not constants.
 *
 * usage: sdtprobe [-n K] [-p US]
 *   -n, --count K     iterations (default 100)
 *   -p, --pause US    microseconds to sleep after each iteration (default 0: none)
 *
 * Built without <sys/sdt.h>, it only says so and exits 77.
 *
 * Last line on stderr:
 *   LOAD sdtprobe fires=K guarded=G skipped=S v_sum=V sem_start=N sem_fire=N sem_guarded=N
 *        sem_stop=N pid=P tids=1 ops=K wall_s= user_s= sys_s=
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#if defined(__has_include) && !__has_include(<sys/sdt.h>)
/* Built without systemtap-sdt-dev (make deps installs it): says so, and t380 skips. */
int main(void)
{
	fputs("sdtprobe: built without <sys/sdt.h> (systemtap-sdt-dev): no probes\n", stderr);
	return 77;
}
#else
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* The semaphores <sys/sdt.h> refers to, where dtrace -G puts them (a .probes section). */
#define SDT_SEMAPHORE(name) \
	volatile unsigned short sdtprobe_##name##_semaphore __attribute__((section(".probes"), used))
SDT_SEMAPHORE(start);
SDT_SEMAPHORE(fire);
SDT_SEMAPHORE(guarded);
SDT_SEMAPHORE(stop);

static const char usage[] =
	"usage: sdtprobe [-n K] [-p US]\n"
	"  -n, --count K     iterations (default 100)\n"
	"  -p, --pause US    sleep US microseconds after each iteration (default 0)\n"
	"USDT probes sdtprobe:start, sdtprobe:fire(int i, long v, char *s) K times with\n"
	"i = 0..K-1, v = i*1000-7, s = \"sdt-<i>\", sdtprobe:guarded(unsigned char i) while its\n"
	"semaphore is set, sdtprobe:stop(long K).\n"
	"'LOAD sdtprobe fires= guarded= skipped= ...' on stderr at the end.\n";

static void sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* One iteration: not inlined, so the probe's operands come from this function's registers. */
static __attribute__((noinline)) long fire_once(int i, char *buf, size_t sz)
{
	long v = (long)i * 1000 - 7;

	snprintf(buf, sz, "sdt-%d", i);
	STAP_PROBE3(sdtprobe, fire, i, v, buf);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "pause", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 100, pause_us = 0, fires = 0, guarded = 0, skipped = 0;
	long v_sum = 0;
	unsigned sem[4];
	char buf[32];
	struct rusage ru;
	double t0, wall;
	int opt;

	while ((opt = load_getopt(argc, argv, "n:p:h", opts, usage)) != -1) {
		switch (opt) {
		case 'n':
			count = parse_ul(optarg, "count");
			break;
		case 'p':
			pause_us = parse_ul(optarg, "pause");
			break;
		}
	}
	if (count > 0x7fffffffUL)
		load_usage(usage, 2);

	t0 = now_s();
	STAP_PROBE(sdtprobe, start);
	for (unsigned long i = 0; i < count; i++) {
		v_sum += fire_once((int)i, buf, sizeof(buf));
		fires++;
		if (sdtprobe_guarded_semaphore) {
			unsigned char b = (unsigned char)i;

			STAP_PROBE1(sdtprobe, guarded, b);
			guarded++;
		} else {
			skipped++;
		}
		if (pause_us)
			sleep_us(pause_us);
	}
	sem[0] = sdtprobe_start_semaphore;
	sem[1] = sdtprobe_fire_semaphore;
	sem[2] = sdtprobe_guarded_semaphore;
	sem[3] = sdtprobe_stop_semaphore;
	STAP_PROBE1(sdtprobe, stop, (long)count);
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD sdtprobe fires=%lu guarded=%lu skipped=%lu v_sum=%ld sem_start=%u "
		"sem_fire=%u sem_guarded=%u sem_stop=%u pid=%d tids=1 ops=%lu wall_s=%.6f "
		"user_s=%.6f sys_s=%.6f\n", fires, guarded, skipped, v_sum, sem[0], sem[1],
		sem[2], sem[3], (int)getpid(), count, wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime));
	return 0;
}
#endif
