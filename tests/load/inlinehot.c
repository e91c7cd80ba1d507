/* SPDX-License-Identifier: MIT */
/*
 * inlinehot.c - a hot loop made of always-inlined functions, for inline frames from DWARF.
 *
 * Built -O2 -g (not -fno-inline like the other loads, see the Makefile), with frame pointers:
 *
 *   main -> spin (noinline) -> [mix_round (inlined) -> mix_step (inlined)]
 *
 * spin() polls the clock once per 4096 rounds; nearly every instruction it runs belongs to
 * mix_step, inlined into mix_round, inlined into spin.  A profile with inline frames shows
 * the stack main;spin;mix_round (inlined);mix_step (inlined); a symbol table alone shows
 * main;spin.
 *
 * usage: inlinehot [-d SECONDS]
 * Last line on stderr:
 *   LOAD inlinehot duration_s=S rounds=N pid=P tids=T ops=N wall_s=S user_s=S sys_s=S
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] =
	"usage: inlinehot [-d SECONDS]\n"
	"  -d, --duration S   run time in seconds, fractions allowed (default 1)\n"
	"Spins in always-inlined functions (spin -> mix_round -> mix_step).\n"
	"Prints 'LOAD inlinehot duration_s= rounds= pid= ... ' on stderr.\n";

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix_step(uint64_t x, uint64_t k)
{
	/* a dependency chain the compiler cannot fold away */
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull + k;
	x ^= x >> 29;
	return x + k;
}

static inline __attribute__((always_inline)) uint64_t mix_round(uint64_t x)
{
	for (uint64_t k = 0; k < 64; k++)
		x = mix_step(x, k);
	return x;
}

__attribute__((noinline)) static uint64_t spin(double duration, unsigned long *rounds)
{
	double t0 = now_s();
	uint64_t x = sink + 1;

	do {
		for (int i = 0; i < 4096; i++)
			x = mix_round(x);
		*rounds += 4096;
	} while (now_s() - t0 < duration);
	return x;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double duration = 1, t0, wall;
	unsigned long rounds = 0;
	struct rusage ru;
	int opt;

	while ((opt = load_getopt(argc, argv, "d:h", opts, usage)) != -1) {
		switch (opt) {
		case 'd':
			duration = parse_num(optarg, "duration");
			break;
		}
	}
	t0 = now_s();
	sink = spin(duration, &rounds);
	wall = now_s() - t0;
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD inlinehot duration_s=%.3f rounds=%lu pid=%d tids=%d ops=%lu "
		"wall_s=%.6f user_s=%.6f sys_s=%.6f\n", duration, rounds, (int)getpid(),
		(int)syscall(SYS_gettid), rounds, wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime));
	return 0;
}
