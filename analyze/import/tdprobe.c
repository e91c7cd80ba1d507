/* SPDX-License-Identifier: MIT */
/*
 * tdprobe.c - a trace.dat's headers parsed in a forked child first (tdprobe.h).
 *
 * The child is a copy of pp-analyze at the point of the import: nothing is exec'd, so the
 * probe costs a fork and a second parse of the headers (the formats, kallsyms, printk
 * formats, cmdlines; not the event data).  It dumps no core.  Its fatal signals are reset
 * to their defaults so that a crash kills it by that signal even under a sanitizer (whose
 * handler would report and exit with a code of its own, or have libFuzzer save the input as
 * a crash of its own).
 * Exit codes: PROBE_READ (libtracecmd read the headers), PROBE_REFUSED (it refused them:
 * the parent's own open says why); any other end is the file's fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "analyze/import/tdprobe.h"
#include "common/err.h"

enum { PROBE_READ = 0, PROBE_REFUSED = 3, PROBE_ALARM_S = 20 };

static const int fatal_signals[] = { SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGALRM };

/*
 * A sanitizer's: where its reports go.  Weak: NULL in a build without one.  A sanitizer that
 * was given a report fd (libFuzzer's -close_fd_mask) reopens it by path in a forked child,
 * and with no path set writes ".PID" files into the working directory.
 */
void __sanitizer_set_report_path(const char *path) __attribute__((weak));

/* The child: parse the headers and say how it went by its exit code.  Does not return. */
static void __attribute__((noreturn)) probe_child(const char *path, int flags)
{
	struct tracecmd_input *h;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	if (__sanitizer_set_report_path)
		__sanitizer_set_report_path("stderr");	/* now /dev/null */
	/* its death is expected: no core file, nor one handed to a core_pattern pipe */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		signal(fatal_signals[i], SIG_DFL);
	alarm(PROBE_ALARM_S);
	h = tracecmd_open_head(path, flags);
	/* _exit(): no atexit handlers, no stdio flush of the parent's buffers, no leak check */
	_exit(h ? PROBE_READ : PROBE_REFUSED);
}

int ana_td_probe(const char *path, int flags, char *why, size_t whysz)
{
	pid_t pid, got;
	int status;

	fflush(NULL);	/* the child inherits no half-written stdio buffer to flush twice */
	pid = fork();
	if (pid < 0) {
		snprintf(why, whysz, "cannot fork to probe its headers: %s", strerror(errno));
		return -errno;
	}
	if (!pid)
		probe_child(path, flags);
	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		snprintf(why, whysz, "cannot wait for the probe of its headers: %s",
			 strerror(errno));
		return -errno;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(why, whysz, "libtraceevent did not finish parsing its event formats "
			 "in %d s", PROBE_ALARM_S);
	else if (WIFSIGNALED(status))
		snprintf(why, whysz, "libtraceevent cannot parse its event formats: it crashed "
			 "(SIG%s)", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else if (WIFEXITED(status) && WEXITSTATUS(status) != PROBE_READ &&
		 WEXITSTATUS(status) != PROBE_REFUSED)
		snprintf(why, whysz, "libtraceevent cannot parse its event formats: it failed "
			 "(exit %d)", WEXITSTATUS(status));
	else
		return 0;
	return PP_EBAD_RECORD;
}
