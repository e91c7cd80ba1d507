/* SPDX-License-Identifier: MIT */
/*
 * pinpair.c - two CPU-bound threads pinned to one CPU, plus a sleeper: run-queue delay.
 *
 * spin_a and spin_b busy-loop on the vDSO clock until the deadline, both pinned to --cpu, so
 * each one is runnable-but-waiting (task state R, "run delay") about half of the time while
 * the other runs.  The sleeper thread loops on nanosleep(--sleep) until the deadline, so it
 * spends most of its time in state S and wakes about duration/sleep times; it is unpinned
 * unless --sleeper-cpu is given (on the same CPU as the spinners it also queues behind them).
 * At the end each thread reads its own /proc/thread-self/schedstat (needs CONFIG_SCHEDSTATS
 * or CONFIG_SCHED_INFO; -1 if absent): on-CPU ns, run-queue wait ns, timeslices.  These are
 * the kernel's own ground truth for a rundelay or task-state analyzer.
 *
 * usage: pinpair [-d SECONDS] [-c CPU] [-s SLEEP_MS] [-S SLEEPER_CPU]
 *   -d, --duration S       run time in seconds, fractions allowed (default 2)
 *   -c, --cpu C            CPU of the two spinners (default 0)
 *   -s, --sleep MS         sleeper's nanosleep length in ms, fractions allowed (default 10)
 *   -S, --sleeper-cpu C    pin the sleeper to CPU C (default: not pinned)
 *
 * Last line on stderr (lists are in the order spin_a, spin_b, sleeper):
 *   LOAD pinpair duration_s=S cpu=C sleep_ms=M sleeps=N spin_tids=A,B sleeper_tid=T
 *        run_ns=A,B,T delay_ns=A,B,T slices=A,B,T pid=P tids=A,B,T ops=N wall_s=S
 *        user_s=S sys_s=S
 * (ops = the spinners' clock polls together.)
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

struct pinpair_cfg {
	double deadline;	/* CLOCK_MONOTONIC seconds */
	double sleep_ms;
	pthread_barrier_t start;
};

struct pinpair_thread {
	struct pinpair_cfg *cfg;
	pthread_t thread;
	int cpu;		/* -1: not pinned */
	int sleeper;
	pid_t tid;
	unsigned long ops;	/* clock polls (spinners) or sleeps (sleeper) */
	long long run_ns, delay_ns, slices;
};

static const char usage[] =
	"usage: pinpair [-d SECONDS] [-c CPU] [-s SLEEP_MS] [-S SLEEPER_CPU]\n"
	"  -d, --duration S       run time in seconds (default 2)\n"
	"  -c, --cpu C            CPU of the two spinning threads (default 0)\n"
	"  -s, --sleep MS         sleeper's nanosleep length in ms (default 10)\n"
	"  -S, --sleeper-cpu C    pin the sleeper too (default: not pinned)\n"
	"Prints 'LOAD pinpair ... spin_tids=A,B sleeper_tid=T run_ns= delay_ns= slices= ...'\n"
	"on stderr.\n";

static void die_rc(const char *what, int rc)
{
	fprintf(stderr, "pinpair: %s: %s\n", what, strerror(rc));
	exit(1);
}

static void pinpair_schedstat_read(struct pinpair_thread *t)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	t->run_ns = t->delay_ns = t->slices = -1;
	if (!f)
		return;
	if (fscanf(f, "%lld %lld %lld", &t->run_ns, &t->delay_ns, &t->slices) != 3)
		t->run_ns = t->delay_ns = t->slices = -1;
	fclose(f);
}

static void *pinpair_thread_run(void *arg)
{
	struct pinpair_thread *t = arg;
	const struct pinpair_cfg *cfg = t->cfg;

	t->tid = (pid_t)syscall(SYS_gettid);
	if (t->cpu >= 0) {
		cpu_set_t set;
		int rc;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (rc)
			die_rc("cannot pin thread", rc);
	}
	pthread_barrier_wait(&t->cfg->start);
	if (t->sleeper) {
		long ns = (long)(cfg->sleep_ms * 1e6);
		struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };

		while (now_s() < cfg->deadline) {
			nanosleep(&ts, NULL);
			t->ops++;
		}
	} else {
		while (now_s() < cfg->deadline)
			t->ops++;
	}
	pinpair_schedstat_read(t);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "sleep", required_argument, NULL, 's' },
		{ "sleeper-cpu", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pinpair_cfg cfg = { .sleep_ms = 10 };
	struct pinpair_thread th[3] = { { .cpu = 0 }, { .cpu = 0 }, { .cpu = -1, .sleeper = 1 } };
	double duration = 2, t0, wall;
	struct rusage ru;
	int opt, rc;

	setvbuf(stderr, NULL, _IOLBF, 0);	/* the LOAD line leaves in one write */
	while ((opt = load_getopt(argc, argv, "d:c:s:S:h", opts, usage)) != -1) {
		switch (opt) {
		case 'd':
			duration = parse_num(optarg, "duration");
			break;
		case 'c':
			th[0].cpu = th[1].cpu = (int)parse_num(optarg, "cpu");
			break;
		case 's':
			cfg.sleep_ms = parse_num(optarg, "sleep");
			break;
		case 'S':
			th[2].cpu = (int)parse_num(optarg, "sleeper cpu");
			break;
		}
	}
	if (cfg.sleep_ms <= 0)
		load_usage(usage, 2);
	rc = pthread_barrier_init(&cfg.start, NULL, 4);
	if (rc)
		die_rc("pthread_barrier_init", rc);
	for (int i = 0; i < 3; i++) {
		th[i].cfg = &cfg;
		rc = pthread_create(&th[i].thread, NULL, pinpair_thread_run, &th[i]);
		if (rc)
			die_rc("pthread_create", rc);
	}
	/* the deadline is set before the barrier releases anyone */
	t0 = now_s();
	cfg.deadline = t0 + duration;
	pthread_barrier_wait(&cfg.start);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i].thread, NULL);
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD pinpair duration_s=%.3f cpu=%d sleep_ms=%.3f sleeps=%lu "
		"spin_tids=%d,%d sleeper_tid=%d run_ns=%lld,%lld,%lld delay_ns=%lld,%lld,%lld "
		"slices=%lld,%lld,%lld pid=%d tids=%d,%d,%d ops=%lu wall_s=%.6f user_s=%.6f "
		"sys_s=%.6f\n", duration, th[0].cpu, cfg.sleep_ms, th[2].ops, (int)th[0].tid,
		(int)th[1].tid, (int)th[2].tid, th[0].run_ns, th[1].run_ns, th[2].run_ns,
		th[0].delay_ns, th[1].delay_ns, th[2].delay_ns, th[0].slices, th[1].slices,
		th[2].slices, (int)getpid(), (int)th[0].tid, (int)th[1].tid, (int)th[2].tid,
		th[0].ops + th[1].ops, wall, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime));
	return 0;
}
