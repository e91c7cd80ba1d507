/* SPDX-License-Identifier: MIT */
/*
 * ctxsw.c - context-switch storm: two threads ping-pong one byte over two pipes.
 *
 * One round trip: the main thread writes to pipe A (waking the peer) and blocks reading pipe
 * B; the peer reads A, writes B (waking main) and blocks reading A again.  Pinned to one CPU
 * (--cpu), every hand-off is a direct thread-to-thread switch, so a round trip costs about
 * 2 sched_switch (each thread switching out once) and 2 sched_wakeup; "about" because a
 * wakeup may preempt the waker before it blocks, which shifts events between round trips.
 *
 * usage: ctxsw [-n N] [-c CPU]
 *   -n, --count N   round trips (default 100000)
 *   -c, --cpu C     pin both threads to CPU C (default: not pinned)
 *
 * Last line on stderr:
 *   LOAD ctxsw n=N cpu=C pid=P tids=MAIN,PEER ops=N wall_s=S user_s=S sys_s=S
 * Not here: measuring switch latency; the tracer under test does that.
 */
#include <errno.h>
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

struct ctxsw {
	unsigned long nr_trips;
	int cpu;
	int ab[2];		/* main -> peer */
	int ba[2];		/* peer -> main */
	pid_t peer_tid;
};

static const char usage[] =
	"usage: ctxsw [-n N] [-c CPU]\n"
	"  -n, --count N   round trips (default 100000)\n"
	"  -c, --cpu C     pin both threads to CPU C (default: not pinned)\n"
	"Prints 'LOAD ctxsw n= cpu= pid= tids=MAIN,PEER ops= wall_s= user_s= sys_s=' on stderr.\n";

static void die(const char *what)
{
	fprintf(stderr, "ctxsw: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin_self(int cpu)
{
	cpu_set_t set;
	int rc;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc) {
		errno = rc;
		die("cannot pin to the CPU");
	}
}

static void *ctxsw_peer(void *arg)
{
	struct ctxsw *c = arg;
	char byte;

	c->peer_tid = (pid_t)syscall(SYS_gettid);
	pin_self(c->cpu);
	for (unsigned long i = 0; i < c->nr_trips; i++) {
		if (read(c->ab[0], &byte, 1) != 1 || write(c->ba[1], &byte, 1) != 1)
			die("peer pipe");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctxsw c = { .nr_trips = 100000, .cpu = -1 };
	struct rusage ru;
	pthread_t peer;
	double t0, wall;
	char byte = 'x';
	int opt, rc;

	while ((opt = load_getopt(argc, argv, "n:c:h", opts, usage)) != -1) {
		switch (opt) {
		case 'n':
			c.nr_trips = parse_ul(optarg, "count");
			break;
		case 'c':
			c.cpu = (int)parse_ul(optarg, "cpu");
			break;
		}
	}
	if (pipe(c.ab) || pipe(c.ba))
		die("pipe");
	pin_self(c.cpu);

	t0 = now_s();
	rc = pthread_create(&peer, NULL, ctxsw_peer, &c);
	if (rc) {
		errno = rc;
		die("pthread_create");
	}
	for (unsigned long i = 0; i < c.nr_trips; i++) {
		if (write(c.ab[1], &byte, 1) != 1 || read(c.ba[0], &byte, 1) != 1)
			die("main pipe");
	}
	pthread_join(peer, NULL);
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD ctxsw n=%lu cpu=%d pid=%d tids=%d,%d ops=%lu wall_s=%.6f "
		"user_s=%.6f sys_s=%.6f\n", c.nr_trips, c.cpu, (int)getpid(),
		(int)syscall(SYS_gettid), (int)c.peer_tid, c.nr_trips, wall,
		tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
