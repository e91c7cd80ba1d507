/* SPDX-License-Identifier: MIT */
/*
 * runstat.c - run a command and report its wall time, CPU time and peak RSS.
 *
 * The numbers come from wait4() on the child, so user/sys cover the command and every
 * descendant it waited for (perf record's workload, trace-cmd's per-CPU readers), and
 * maxrss is the largest single process among them.  It exists because the bench harness is
 * Python: a child forked (or vforked) from Python starts with Python's resident set counted
 * in its ru_maxrss, which hides a small recorder's footprint.  A child forked from this tiny
 * program starts at about 1 MB.  With -t the command (its whole process group) gets SIGTERM
 * after the timeout and SIGKILL 5 s later; SIGINT and SIGTERM sent to runstat are passed on
 * to that process group.
 *
 * usage: runstat [-o FILE] [-t SECONDS] -- CMD [ARGS...]
 * Writes one line to FILE (default stderr):
 *   RUNSTAT rc=N signal=N timeout=0|1 wall_s=S user_s=S sys_s=S maxrss_kb=N
 * Exit status: the command's, 128+N if it died of signal N, 127 if it could not be started.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;
static volatile pid_t child_pgid;

static void on_alarm(int sig)
{
	(void)sig;
	if (!timed_out) {
		timed_out = 1;
		kill(-child_pgid, SIGTERM);
		alarm(5);
	} else {
		kill(-child_pgid, SIGKILL);
	}
}

/* the child runs in its own process group: pass on an interrupt aimed at us */
static void on_forward(int sig)
{
	if (child_pgid > 0)
		kill(-child_pgid, sig);
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct sigaction fwd = { .sa_handler = on_forward };
	const char *out_path = NULL;
	unsigned int timeout_s = 0;
	struct timespec t0, t1;
	struct rusage ru;
	int opt, status, rc, sig;
	FILE *out = stderr;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+o:t:")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case 't':
			timeout_s = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: runstat [-o FILE] [-t SECONDS] -- CMD [ARGS...]\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: runstat [-o FILE] [-t SECONDS] -- CMD [ARGS...]\n");
		return 2;
	}
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "runstat: cannot open '%s': %s\n", out_path,
				strerror(errno));
			return 2;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "runstat: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no race with an early alarm */
	child_pgid = pid;
	sigaction(SIGINT, &fwd, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	if (timeout_s) {
		sigaction(SIGALRM, &sa, NULL);
		alarm(timeout_s);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
			return 127;
		}
	}
	alarm(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	fprintf(out, "RUNSTAT rc=%d signal=%d timeout=%d wall_s=%.6f user_s=%.6f sys_s=%.6f "
		"maxrss_kb=%ld\n", rc, sig, (int)timed_out,
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime), ru.ru_maxrss);
	if (out != stderr)
		fclose(out);
	return sig ? 128 + sig : rc;
}
