// SPDX-License-Identifier: MIT
/*
 * shell.c - system(3) that a stop request ends (shell.h).
 *
 * The wait is a poll() on a pidfd: poll() is never restarted after a signal
 * handler (signal(7)), so a SIGINT or SIGTERM whose handler sets pp_stop
 * returns it, where waitpid() under signal()'s SA_RESTART would wait on.  A
 * kernel without pidfd_open (before 5.3) waits as system(3) does.
 */
#include "common/shell.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void shell_child(const char *cmd, pid_t parent)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2, SIGQUIT };
	sigset_t all;

	setpgid(0, 0);
	/* pp-analyze's stdin is the capture's stream (system() runs live only) */
	int null = open("/dev/null", O_RDONLY);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		_exit(127);
	if (null != STDIN_FILENO)
		close(null);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* The command's group killed, its shell reaped: the status it died with. */
static int shell_kill(pid_t pid)
{
	int st;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* Wait for @pid's end, or pp_stop: SIGINT and SIGTERM let in only inside ppoll(). */
static int shell_wait(pid_t pid, int fd)
{
	sigset_t stops, was;
	int st = -1;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &was);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (pp_stop) {
			st = shell_kill(pid);
			break;
		}
		if (ppoll(&p, 1, NULL, &was) < 0 && errno != EINTR) {
			st = shell_kill(pid);
			break;
		}
		if (p.revents && waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	sigprocmask(SIG_SETMASK, &was, NULL);
	return st;
}

int pp_shell(const char *cmd)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	int st, fd;

	if (pid < 0)
		return -1;
	if (pid == 0)
		shell_child(cmd, parent);
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		st = shell_wait(pid, fd);
		close(fd);
		return st;
	}
	while (waitpid(pid, &st, 0) < 0)	/* no pidfd: as system(3) */
		if (errno != EINTR)
			return shell_kill(pid);
	return st;
}
