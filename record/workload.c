/* SPDX-License-Identifier: MIT */
/*
 * workload.c - forking, holding and reaping the recorded command.
 *
 * The child restores default signal dispositions that exec would otherwise
 * inherit (SIGPIPE is ignored in pp-record) and unblocks all signals.  If
 * pp-record dies before releasing it, the child reads EOF and exits 127
 * without running anything.
 * Not here: choosing what to record about it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/workload.h"

int rec_workload_prepare(struct rec_workload *wl, const char *const *argv, int stdout_fd)
{
	int go[2], er[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return e;
	}
	if (pid == 0) {
		sigset_t all;
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		if (stdout_fd >= 0 && stdout_fd != STDOUT_FILENO && dup2(stdout_fd, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	wl->pid = pid;
	wl->go_fd = go[1];
	wl->err_fd = er[0];
	return 0;
}

int rec_workload_start(struct rec_workload *wl)
{
	ssize_t n;
	int e = 0;

	if (write(wl->go_fd, "g", 1) != 1)
		return -errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	wl->started = true;
	do
		n = read(wl->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(wl->pid, &wl->status, 0);
		wl->exited = true;
		return -e;
	}
	return 0;
}

bool rec_workload_reap(struct rec_workload *wl)
{
	if (!wl->pid || wl->exited)
		return wl->exited;
	if (waitpid(wl->pid, &wl->status, WNOHANG) == wl->pid)
		wl->exited = true;
	return wl->exited;
}

void rec_workload_stop(struct rec_workload *wl)
{
	if (!wl->pid)
		return;
	if (wl->go_fd >= 0 && !wl->started) {
		/* never released: closing the pipe makes it exit 127 */
		close(wl->go_fd);
		wl->go_fd = -1;
	}
	if (wl->err_fd >= 0) {
		close(wl->err_fd);
		wl->err_fd = -1;
	}
	if (!rec_workload_reap(wl) && wl->started) {
		kill(wl->pid, SIGTERM);
		for (int i = 0; i < 200 && !rec_workload_reap(wl); i++) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (!wl->exited)
			kill(wl->pid, SIGKILL);
	}
	if (!wl->exited && waitpid(wl->pid, &wl->status, 0) == wl->pid)
		wl->exited = true;
}

int rec_workload_exit_code(const struct rec_workload *wl)
{
	if (!wl->exited)
		return 0;
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return 1;
}

char *rec_workload_find_dup(const char *cmd)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0 ? pp_xstrdup(cmd) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *f = pp_xasprintf("%.*s/%s", (int)(len ? len : 1), len ? p : ".", cmd);
		struct stat st;

		if (access(f, X_OK) == 0 && stat(f, &st) == 0 && S_ISREG(st.st_mode))
			return f;
		free(f);
		p = e ? e + 1 : NULL;
	}
	return NULL;
}
