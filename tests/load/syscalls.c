/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - system-call storm: T threads issue exactly K cheap system calls each.
 *
 * Calls are made with syscall(2) so that libc cannot cache or merge them: getppid (never
 * cached) and/or read(fd of /dev/zero, buf, 0).  The workers start together from a barrier.
 * With --rate each worker paces itself to about R calls per second by busy-waiting on the
 * vDSO clock after every batch of 100 calls, so pacing adds no system calls of its own and a
 * paced worker still keeps its CPU busy.  The exact counts per worker thread are the ground
 * truth; the process as a whole also makes a few dozen start-up calls (mmap, clone, ...).
 *
 * usage: syscalls [-t T] [-n K] [-m getppid|read0|both] [-r RATE] [-p]
 *   -t, --threads T   worker threads (default 1, at most 256)
 *   -n, --count K     calls per thread and per kind (default 1000000)
 *   -m, --mode M      getppid (default), read0, or both (each iteration does one of each)
 *   -r, --rate R      per-thread iterations per second (default 0: as fast as possible)
 *   -p, --pin         pin worker i to CPU i modulo the online CPUs
 *
 * Last line on stderr:
 *   LOAD syscalls mode=M threads=T count=K getppid=N read0=N getppid_nr=110 read_nr=0
 *        pid=P tids=T1,T2,... ops=N wall_s=S user_s=S sys_s=S
 * (getppid and read0 are totals over all workers; ops = getppid + read0.)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/load/load.h"

#define SYSCALLS_MAX_THREADS 256
#define SYSCALLS_BATCH 100

enum syscalls_mode { MODE_GETPPID = 1, MODE_READ0 = 2, MODE_BOTH = 3 };

struct syscalls_cfg {
	unsigned long count;
	unsigned int mode;
	double rate;
	int pin;
	int zero_fd;
	pthread_barrier_t start;
};

struct syscalls_worker {
	struct syscalls_cfg *cfg;
	pthread_t thread;
	int index;
	pid_t tid;
};

static const char usage[] =
	"usage: syscalls [-t T] [-n K] [-m getppid|read0|both] [-r RATE] [-p]\n"
	"  -t, --threads T   worker threads (default 1)\n"
	"  -n, --count K     calls per thread and per kind (default 1000000)\n"
	"  -m, --mode M      getppid (default), read0, or both\n"
	"  -r, --rate R      per-thread iterations per second (default 0: unpaced)\n"
	"  -p, --pin         pin worker i to CPU i modulo the online CPUs\n"
	"Prints 'LOAD syscalls mode= threads= count= getppid= read0= ... tids= ops= wall_s= ...'\n"
	"on stderr.\n";

static void die_rc(const char *what, int rc)
{
	fprintf(stderr, "syscalls: %s: %s\n", what, strerror(rc));
	exit(1);
}

static void *syscalls_worker_run(void *arg)
{
	struct syscalls_worker *w = arg;
	const struct syscalls_cfg *cfg = w->cfg;
	char buf[1];
	double t0;

	w->tid = (pid_t)syscall(SYS_gettid);
	if (cfg->pin) {
		long nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;
		int rc;

		CPU_ZERO(&set);
		CPU_SET(w->index % (nr_cpus > 0 ? nr_cpus : 1), &set);
		rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (rc)
			die_rc("cannot pin worker", rc);
	}
	pthread_barrier_wait(&w->cfg->start);
	t0 = now_s();
	for (unsigned long i = 0; i < cfg->count; i++) {
		if (cfg->mode & MODE_GETPPID)
			syscall(SYS_getppid);
		if ((cfg->mode & MODE_READ0) && syscall(SYS_read, cfg->zero_fd, buf, 0) != 0)
			die_rc("read of /dev/zero", errno);
		if (cfg->rate > 0 && (i + 1) % SYSCALLS_BATCH == 0) {
			double due = t0 + (i + 1) / cfg->rate;

			while (now_s() < due)
				;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "pin", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const mode_names[] = { "", "getppid", "read0", "both" };
	struct syscalls_cfg cfg = { .count = 1000000, .mode = MODE_GETPPID, .zero_fd = -1 };
	struct syscalls_worker *workers;
	unsigned long nr_threads = 1, per_kind;
	struct rusage ru;
	double t0, wall;
	char *end;
	int opt, rc;

	setvbuf(stderr, NULL, _IOLBF, 0);	/* the LOAD line leaves in one write */
	while ((opt = load_getopt(argc, argv, "t:n:m:r:ph", opts, usage)) != -1) {
		switch (opt) {
		case 't':
			nr_threads = parse_ul(optarg, "thread count");
			break;
		case 'n':
			cfg.count = parse_ul(optarg, "count");
			break;
		case 'm':
			if (!strcmp(optarg, "getppid"))
				cfg.mode = MODE_GETPPID;
			else if (!strcmp(optarg, "read0"))
				cfg.mode = MODE_READ0;
			else if (!strcmp(optarg, "both"))
				cfg.mode = MODE_BOTH;
			else {
				fprintf(stderr, "syscalls: unknown mode '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			cfg.rate = strtod(optarg, &end);
			if (end == optarg || *end || cfg.rate < 0) {
				fprintf(stderr, "syscalls: bad rate '%s'\n", optarg);
				return 2;
			}
			break;
		case 'p':
			cfg.pin = 1;
			break;
		}
	}
	if (nr_threads < 1 || nr_threads > SYSCALLS_MAX_THREADS)
		load_usage(usage, 2);
	if (cfg.mode & MODE_READ0) {
		cfg.zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (cfg.zero_fd < 0)
			die_rc("cannot open /dev/zero", errno);
	}
	workers = calloc(nr_threads, sizeof(*workers));
	if (!workers)
		die_rc("calloc", ENOMEM);
	/* the main thread joins the barrier too, so t0 is taken as the workers start */
	rc = pthread_barrier_init(&cfg.start, NULL, (unsigned int)nr_threads + 1);
	if (rc)
		die_rc("pthread_barrier_init", rc);
	for (unsigned long k = 0; k < nr_threads; k++) {
		workers[k].cfg = &cfg;
		workers[k].index = (int)k;
		rc = pthread_create(&workers[k].thread, NULL, syscalls_worker_run, &workers[k]);
		if (rc)
			die_rc("pthread_create", rc);
	}
	pthread_barrier_wait(&cfg.start);
	t0 = now_s();
	for (unsigned long k = 0; k < nr_threads; k++)
		pthread_join(workers[k].thread, NULL);
	wall = now_s() - t0;

	per_kind = cfg.count * nr_threads;
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD syscalls mode=%s threads=%lu count=%lu getppid=%lu read0=%lu "
		"getppid_nr=%d read_nr=%d pid=%d tids=", mode_names[cfg.mode], nr_threads,
		cfg.count, (cfg.mode & MODE_GETPPID) ? per_kind : 0,
		(cfg.mode & MODE_READ0) ? per_kind : 0, SYS_getppid, SYS_read, (int)getpid());
	for (unsigned long k = 0; k < nr_threads; k++)
		fprintf(stderr, "%s%d", k ? "," : "", (int)workers[k].tid);
	fprintf(stderr, " ops=%lu wall_s=%.6f user_s=%.6f sys_s=%.6f\n",
		per_kind * (cfg.mode == MODE_BOTH ? 2 : 1), wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	free(workers);
	return 0;
}
