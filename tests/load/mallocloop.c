/* SPDX-License-Identifier: MIT */
/*
 * mallocloop.c - malloc/free traffic with a known shape, for allocation and leak analyzers.
 *
 * ring   a ring of --slots live blocks; each of N operations frees the oldest block and
 *        allocates a new one of a pseudo-random size in 16..4111 bytes (fixed-seed LCG),
 *        touching its first byte.  allocs = frees = N at exit.
 * leak   N times: alloc_path() mallocs a block of a pseudo-random size, free_path() frees it;
 *        spread evenly among them, leak_here() mallocs exactly K blocks of SIZE bytes that
 *        are never freed (still reachable from a global array, so LeakSanitizer builds stay
 *        quiet).  alloc_path, free_path and leak_here are noinline with these stable names,
 *        and each calls malloc or free directly, so a uprobe stack shows them as the caller.
 *
 * usage: mallocloop [-m ring|leak] [-n N] [--slots S] [-k K] [-s SIZE]
 *   -m, --mode M    ring (default) or leak
 *   -n, --count N   operations (ring) or freed blocks (leak); default 1000000 / 10000
 *       --slots S   ring size (default 256)
 *   -k, --leaks K   leaked blocks (leak mode, default 100)
 *   -s, --size B    bytes per leaked block (leak mode, default 1024)
 *
 * Last line on stderr:
 *   LOAD mallocloop mode=M n=N allocs=A frees=F leaks=K leak_size=B leak_bytes=K*B
 *        pid=P tids=T ops=N wall_s=S user_s=S sys_s=S
 * (allocs/frees count the malloc and free calls of the loops above; not counted: one calloc
 * for the bookkeeping array, freed at exit in ring mode, and whatever libc does inside.)
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

static const char usage[] =
	"usage: mallocloop [-m ring|leak] [-n N] [--slots S] [-k K] [-s SIZE]\n"
	"  -m, --mode M    ring (default) or leak\n"
	"  -n, --count N   operations (ring, default 1000000) or freed blocks (leak, 10000)\n"
	"      --slots S   ring size (default 256)\n"
	"  -k, --leaks K   blocks leaked from leak_here() (default 100)\n"
	"  -s, --size B    bytes per leaked block (default 1024)\n"
	"Prints 'LOAD mallocloop mode= n= allocs= frees= leaks= leak_size= leak_bytes= ...'\n"
	"on stderr.\n";

/* The leaked blocks stay reachable from here; never freed on purpose. */
static void **leaked;
static unsigned long nr_leaked;
static unsigned int lcg_state = 12345;

static size_t next_size(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return 16 + ((lcg_state >> 16) & 4095);
}

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "mallocloop: out of memory\n");
		exit(1);
	}
	return p;
}

/* Global, so tests find them by name in stacks. */
void *alloc_path(size_t size);
void free_path(void *p);
void leak_here(size_t size);

__attribute__((noinline)) void *alloc_path(size_t size)
{
	char *p = must(malloc(size));

	p[0] = 1;
	return p;
}

__attribute__((noinline)) void free_path(void *p)
{
	free(p);
}

__attribute__((noinline)) void leak_here(size_t size)
{
	char *p = must(malloc(size));

	memset(p, 0xa5, size);
	leaked[nr_leaked++] = p;
}

static void run_ring(unsigned long n, unsigned long slots)
{
	char **ring = must(calloc(slots, sizeof(*ring)));

	for (unsigned long i = 0; i < n; i++) {
		unsigned long k = i % slots;

		free(ring[k]);
		ring[k] = must(malloc(next_size()));
		ring[k][0] = (char)i;
	}
	for (unsigned long k = 0; k < slots; k++)
		free(ring[k]);
	free(ring);
}

static void run_leak(unsigned long n, unsigned long nr_leaks, size_t size)
{
	/* leak number j happens before free number j * n / nr_leaks */
	unsigned long next = 0;

	leaked = must(calloc(nr_leaks ? nr_leaks : 1, sizeof(*leaked)));
	for (unsigned long i = 0; i < n || nr_leaked < nr_leaks; i++) {
		while (nr_leaked < nr_leaks && (next <= i || i >= n)) {
			leak_here(size);
			next = nr_leaked * n / nr_leaks;
		}
		if (i < n)
			free_path(alloc_path(next_size()));
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'n' },
		{ "slots", required_argument, NULL, 'S' },
		{ "leaks", required_argument, NULL, 'k' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long n = 0, slots = 256, nr_leaks = 100, size = 1024, allocs, frees;
	int leak_mode = 0, opt;
	struct rusage ru;
	double t0, wall;

	while ((opt = load_getopt(argc, argv, "m:n:k:s:h", opts, usage)) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "leak")) {
				leak_mode = 1;
			} else if (strcmp(optarg, "ring")) {
				fprintf(stderr, "mallocloop: unknown mode '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			n = parse_ul(optarg, "count");
			break;
		case 'S':
			slots = parse_ul(optarg, "slot count");
			break;
		case 'k':
			nr_leaks = parse_ul(optarg, "leak count");
			break;
		case 's':
			size = parse_ul(optarg, "size");
			break;
		}
	}
	if (!slots || !size)
		load_usage(usage, 2);
	if (!n)
		n = leak_mode ? 10000 : 1000000;

	t0 = now_s();
	if (leak_mode) {
		run_leak(n, nr_leaks, size);
		allocs = n + nr_leaks;
		frees = n;
	} else {
		run_ring(n, slots);
		allocs = frees = n;
		nr_leaks = 0;
	}
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD mallocloop mode=%s n=%lu allocs=%lu frees=%lu leaks=%lu "
		"leak_size=%lu leak_bytes=%lu pid=%d tids=%d ops=%lu wall_s=%.6f user_s=%.6f "
		"sys_s=%.6f\n", leak_mode ? "leak" : "ring", n, allocs, frees, nr_leaks,
		leak_mode ? size : 0, nr_leaks * (leak_mode ? size : 0), (int)getpid(),
		(int)syscall(SYS_gettid), n, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
