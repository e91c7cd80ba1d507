/* SPDX-License-Identifier: MIT */
/*
 * progs.c - pp's two programs: found beside pp (else on PATH), run in pp's
 * place or run and waited for.
 *
 * Finding them beside pp first means a pp of one build never runs the
 * pp-record of another that PATH happens to hold.
 * Not here: the live pipeline's children, with their pipes and signals (live.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "front/front.h"

const char *front_prog(const char *bindir, const char *name, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/%s", bindir, name);
	if (bindir[0] && access(buf, X_OK) == 0)
		return buf;
	return name;
}

void front_exec(const char *bindir, const char *name, int argc, const char **argv)
{
	char path[PATH_MAX + 32];
	/* the program, @argc words, the NULL that ends them */
	const char **v = pp_xcalloc((size_t)argc + 2, sizeof(*v));

	v[0] = front_prog(bindir, name, path, sizeof(path));
	for (int i = 0; i < argc; i++)
		v[i + 1] = argv[i];
	execvp(v[0], (char **)v);
	pp_die("cannot run %s: %s", v[0], strerror(errno));
}

int front_run_wait(const char *bindir, const char *name, const char *arg1, const char *arg2,
		   bool to_stderr)
{
	char path[PATH_MAX + 32];
	const char *v[] = { front_prog(bindir, name, path, sizeof(path)), arg1, arg2, NULL };
	int st;

	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		pp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(v[0], (char **)v);
		pp_err("cannot run %s: %s", v[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			pp_die("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
