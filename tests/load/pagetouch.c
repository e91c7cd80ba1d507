/* SPDX-License-Identifier: MIT */
/*
 * pagetouch.c - touch N fresh anonymous pages: one minor page fault per page.
 *
 * Each round maps N pages (mmap MAP_PRIVATE|MAP_ANONYMOUS), asks for no transparent huge
 * pages (one 2 MiB THP fault would stand for 512 pages), writes one byte per page, and unmaps
 * them.  Writing, not reading, matters: a read fault maps the shared zero page and the write
 * fault after it would count twice.  The ground truth is pages = N * rounds faults in
 * touch_pages(); minflt is the kernel's own count for the process over the run, which also
 * includes a handful of faults on the stack and in libc (first use of their pages).
 *
 * usage: pagetouch [-n N] [-r R]
 *   -n, --pages N    pages per round (default 10000)
 *   -r, --rounds R   rounds, each on a fresh mapping (default 1)
 *
 * Last line on stderr:
 *   LOAD pagetouch pages=N*R rounds=R page_size=B minflt=F pid=P tids=T ops=N*R
 *        wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] =
	"usage: pagetouch [-n N] [-r R]\n"
	"  -n, --pages N    pages per round (default 10000)\n"
	"  -r, --rounds R   rounds on fresh mappings (default 1)\n"
	"Prints 'LOAD pagetouch pages= rounds= page_size= minflt= ...' on stderr.\n";

/* Global, so tests find it by name in stacks. */
void touch_pages(volatile char *base, unsigned long nr_pages, size_t page_sz);

__attribute__((noinline)) void touch_pages(volatile char *base, unsigned long nr_pages,
					   size_t page_sz)
{
	for (unsigned long i = 0; i < nr_pages; i++)
		base[i * page_sz] = (char)i;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pages", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long nr_pages = 10000, rounds = 1;
	size_t page_sz = (size_t)sysconf(_SC_PAGESIZE);
	struct rusage ru0, ru;
	double t0, wall;
	int opt;

	while ((opt = load_getopt(argc, argv, "n:r:h", opts, usage)) != -1) {
		switch (opt) {
		case 'n':
			nr_pages = parse_ul(optarg, "page count");
			break;
		case 'r':
			rounds = parse_ul(optarg, "round count");
			break;
		}
	}
	if (!nr_pages)
		load_usage(usage, 2);

	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_s();
	for (unsigned long r = 0; r < rounds; r++) {
		size_t len = nr_pages * page_sz;
		char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);

		if (base == MAP_FAILED) {
			fprintf(stderr, "pagetouch: mmap of %zu bytes: %s\n", len, strerror(errno));
			return 1;
		}
#ifdef MADV_NOHUGEPAGE
		madvise(base, len, MADV_NOHUGEPAGE);	/* advisory: no THP kernel is fine too */
#endif
		touch_pages(base, nr_pages, page_sz);
		munmap(base, len);
	}
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD pagetouch pages=%lu rounds=%lu page_size=%zu minflt=%ld pid=%d "
		"tids=%d ops=%lu wall_s=%.6f user_s=%.6f sys_s=%.6f\n", nr_pages * rounds, rounds,
		page_sz, ru.ru_minflt - ru0.ru_minflt, (int)getpid(), (int)syscall(SYS_gettid),
		nr_pages * rounds, wall, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
