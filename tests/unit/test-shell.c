/* SPDX-License-Identifier: MIT */
/*
 * test-shell.c - the expression language's system() (common/shell.c): a command's
 * status as system(3) gives it, and a stop request (pp_stop) that ends a command
 * which would not end, the processes it started included.  The suite runs in a
 * process of its own, so pp_stop and the timer are its own.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/shell.h"
#include "tests/unit/unit.h"

static void test_shell__status(void)
{
	int st = pp_shell("exit 3");

	CU_ASSERT_TRUE(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 3);
	st = pp_shell("kill -TERM $$");
	CU_ASSERT_TRUE(WIFSIGNALED(st));
	CU_ASSERT_EQUAL(WTERMSIG(st), SIGTERM);
	st = pp_shell("/nonexistent/t-shell 2>/dev/null");
	CU_ASSERT_TRUE(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 127);
}

/* The command reads /dev/null, not the caller's stdin (a live pp-analyze's is the stream). */
static void test_shell__stdin(void)
{
	int p[2], saved = dup(STDIN_FILENO), st;
	char c = 0;

	CU_ASSERT_FATAL(saved >= 0 && pipe(p) == 0);
	CU_ASSERT_EQUAL(write(p[1], "x", 1), 1);
	close(p[1]);
	dup2(p[0], STDIN_FILENO);
	close(p[0]);
	st = pp_shell("test -z \"$(head -c 1)\"");
	CU_ASSERT_TRUE(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
	CU_ASSERT_EQUAL(read(STDIN_FILENO, &c, 1), 1);	/* still ours */
	CU_ASSERT_EQUAL(c, 'x');
	dup2(saved, STDIN_FILENO);
	close(saved);
}

static void on_alarm(int sig)
{
	(void)sig;
	pp_stop = 1;
}

/* @pid is gone, or a zombie nobody has reaped yet, within 2 s */
static int ended(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		char path[64], buf[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return 1;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[n] = '\0';
		const char *s = strrchr(buf, ')');

		if (s && s[1] == ' ' && s[2] == 'Z')
			return 1;
		usleep(10000);
	}
	return 0;
}

static void test_shell__stop(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 300000 } };
	char tmpl[] = "/tmp/pp-unit-shell-XXXXXX";
	char cmd[256];
	struct timespec a, b;
	int fd = mkstemp(tmpl);
	int st, bg = 0;
	FILE *f;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	/* a shell waiting for a background sleep: both must go, in 0.3 s, not 30 */
	snprintf(cmd, sizeof(cmd), "sleep 30 & echo $! >%s; wait", tmpl);
	signal(SIGALRM, on_alarm);
	pp_stop = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	setitimer(ITIMER_REAL, &it, NULL);
	st = pp_shell(cmd);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pp_stop = 0;
	signal(SIGALRM, SIG_DFL);
	CU_ASSERT_TRUE(WIFSIGNALED(st));
	CU_ASSERT_EQUAL(WTERMSIG(st), SIGKILL);
	CU_ASSERT_TRUE(b.tv_sec - a.tv_sec < 10);
	f = fopen(tmpl, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fscanf(f, "%d", &bg), 1);
	fclose(f);
	unlink(tmpl);
	CU_ASSERT_TRUE(bg > 0 && ended(bg));
	/* after it, commands run again */
	st = pp_shell("exit 0");
	CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

void test_shell__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_shell__status, "a command's exit status and signal, as system(3) gives them"),
		PP_TEST(test_shell__stdin, "the command reads /dev/null, not the caller's stdin"),
		PP_TEST(test_shell__stop, "a stop request kills a command that would not end, and what it started"),
	};
	pp_suite_add("shell", tests, PP_ARRAY_SIZE(tests));
}
