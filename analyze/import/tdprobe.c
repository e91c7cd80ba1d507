/* SPDX-License-Identifier: MIT */
/*
 * tdprobe.c - a trace.dat's headers parsed in a forked child first (tdprobe.h).
 *
 * The child is a copy of pp-analyze at the point of the import: nothing is exec'd, so the
 * probe costs a fork and a second parse of the headers (the formats, kallsyms, printk
 * formats, cmdlines; not the event data).  It dumps no core.  Its fatal signals are reset
 * to their defaults so that a crash kills it by that signal even under a sanitizer (whose
 * handler would report and exit with a code of its own, or have libFuzzer save the input as
 * a crash of its own): ana_import_child_setup().  An analysis converts in a child of its
 * own instead (impchild.h), which is its own probe: ana_td_died() words its death.
 * Exit codes: PROBE_READ (libtracecmd read the headers), PROBE_REFUSED (it refused them:
 * the parent refuses the file without opening it itself); any other end is the file's fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "analyze/import/impchild.h"
#include "analyze/import/tdprobe.h"
#include "common/err.h"

enum { PROBE_READ = 0, PROBE_REFUSED = 3 };

/* The child: parse the headers and say how it went by its exit code.  Does not return. */
static void __attribute__((noreturn)) probe_child(const char *path, int flags)
{
	struct tracecmd_input *h;

	ana_import_child_setup();
	alarm(ANA_TD_ALARM_S);
	h = tracecmd_open_head(path, flags);
	/* _exit(): no atexit handlers, no stdio flush of the parent's buffers, no leak check */
	_exit(h ? PROBE_READ : PROBE_REFUSED);
}

void ana_td_died(int status, bool began, char *why, size_t whysz)
{
	const char *what = began ? "libtracecmd cannot read its event data" :
			   "libtraceevent cannot parse its event formats";

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(why, whysz, "libtraceevent did not finish parsing its event formats "
			 "in %d s", ANA_TD_ALARM_S);
	else if (WIFSIGNALED(status))
		snprintf(why, whysz, "%s: it crashed (SIG%s)", what,
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(why, whysz, "%s: it failed (exit %d)", what,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
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
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_READ)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_REFUSED)
		return ANA_TD_REFUSED;
	ana_td_died(status, false, why, whysz);
	return PP_EBAD_RECORD;
}
