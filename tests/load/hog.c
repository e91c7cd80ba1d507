/* SPDX-License-Identifier: MIT */
/*
 * hog.c - a nice-0 busy loop, the "other program" of make check-busy (tests/tools/busy.sh).
 *
 * It spins in user space on one CPU (or none in particular) until -d seconds have passed,
 * SIGTERM or SIGINT arrives, or its parent goes away (PR_SET_PDEATHSIG, and one check of the
 * parent after it in case it died before): a hog is never left orphaned spinning on a shared
 * machine.  No system call while it spins: a periodic getppid() was 700 of the getppid calls
 * the system-wide counts of t383 saw beside the hogs, which count the loads' getppid calls.  It sets its own nice value to 0, whatever its
 * starter's was.
 * Its name is its own so that the tests, which look for their own loads by name, never take
 * it for one of theirs.
 *
 * usage: hog [-c CPU] [-d SECONDS]
 *   -c, --cpu C        pin to CPU C (default: not pinned)
 *   -d, --duration S   give up after S seconds, fractions allowed (default 7200)
 *
 * Last line on stderr:
 *   LOAD hog cpu=C pid=P tids=T ops=N wall_s=S user_s=S sys_s=S
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/load/load.h"

static const char usage[] =
	"usage: hog [-c CPU] [-d SECONDS]\n"
	"  -c, --cpu C        pin to CPU C (default: not pinned)\n"
	"  -d, --duration S   stop after S seconds (default 7200); SIGTERM, SIGINT or the\n"
	"                     parent's exit stop it too\n"
	"A nice-0 busy loop.  Prints 'LOAD hog cpu= pid= tids= ops= ...' on stderr.\n";

static volatile sig_atomic_t stop;
static volatile unsigned int spin_sink;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const struct option opts[] = {
	{ "cpu", required_argument, NULL, 'c' }, { "duration", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	double duration = 7200, t0, wall;
	unsigned long polls = 0;
	pid_t parent = getppid();
	struct sigaction sa;
	struct rusage ru;
	int cpu = -1, opt;

	while ((opt = load_getopt(argc, argv, "c:d:h", opts, usage)) != -1) {
		switch (opt) {
		case 'c':
			cpu = (int)parse_ul(optarg, "cpu");
			break;
		case 'd':
			duration = parse_num(optarg, "duration");
			break;
		}
	}
	if (cpu >= 0 && load_pin(cpu)) {
		fprintf(stderr, "hog: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 0;	/* gone before the prctl() */
	setpriority(PRIO_PROCESS, 0, 0);	/* lowering a positive nice needs root: best effort */

	t0 = now_s();
	while (!stop && now_s() - t0 < duration) {
		for (int k = 0; k < 4096; k++)
			spin_sink += (unsigned int)k;
		polls++;
	}
	wall = now_s() - t0;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "LOAD hog cpu=%d pid=%d tids=%d ops=%lu wall_s=%.6f user_s=%.6f "
		"sys_s=%.6f\n", cpu, (int)getpid(), (int)getpid(), polls, wall,
		tv_s(ru.ru_utime), tv_s(ru.ru_stime));
	return 0;
}
