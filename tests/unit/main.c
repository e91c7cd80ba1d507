/* SPDX-License-Identifier: MIT */
/*
 * main.c - the CUnit runner for every suite listed in suites.def.
 *
 * usage: unit-tests [SUBSTRING]   run the suites whose name contains SUBSTRING
 *
 * Each suite runs in its own child process with its own CUnit registry (as
 * perf's `perf test` forks each test), so a crash, an exit() or a leak report
 * ends that suite only.  The child prints CUnit's usual report; the parent
 * prints one line per suite and a final "N passed, N failed" over all tests.
 * A suite that dies counts every test it had not passed as failed (at least
 * one).  Exits non-zero when any test failed or any suite died.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "tests/unit/unit.h"

/*
 * What a child tells its parent, in memory shared across the fork: the hooks
 * below keep it current test by test, so it is still meaningful after a crash.
 */
struct suite_report {
	unsigned tests;	      /* registered */
	unsigned passed;      /* completed without a failed assertion */
	unsigned failed;      /* completed with one */
	unsigned fails_at_setup; /* CUnit's failure records when the current test began */
	int done;	      /* CU_basic_run_tests() returned */
	char current[160];    /* description of the test running now */
};

static struct suite_report *report;

/* Installed as every suite's per-test setup and teardown (none sets its own). */
static void test_begin(void)
{
	CU_pTest t = CU_get_current_test();

	snprintf(report->current, sizeof(report->current), "%s", t && t->pName ? t->pName : "?");
	report->fails_at_setup = CU_get_number_of_failure_records();
}

static void test_end(void)
{
	if (CU_get_number_of_failure_records() == report->fails_at_setup)
		report->passed++;
	else
		report->failed++;
	report->current[0] = '\0';
}

/* The child: register one suite, run it with CUnit's basic interface, exit. */
static void run_child(void (*register_fn)(void))
{
	unsigned failed;

	/* line by line, so what CUnit printed before a crash is not lost with it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (CU_initialize_registry() != CUE_SUCCESS)
		exit(2);
	register_fn();
	if (CU_get_error() != CUE_SUCCESS) {
		fprintf(stderr, "unit-tests: registering the suite: %s\n", CU_get_error_msg());
		exit(2);
	}
	for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
		report->tests += s->uiNumberOfTests;
		if (!s->pSetUpFunc && !s->pTearDownFunc) {
			s->pSetUpFunc = test_begin;
			s->pTearDownFunc = test_end;
		}
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
		 CU_get_number_of_suites_failed();
	/* CUnit's own counts are the final word for a suite that ran to the end. */
	report->passed = CU_get_number_of_tests_run() - CU_get_number_of_tests_failed();
	report->failed = CU_get_number_of_tests_failed();
	if (failed && !report->failed)
		report->failed = 1;
	report->done = 1;
	CU_cleanup_registry();
	fflush(NULL);
	/*
	 * The report holds the results: any other status than 0 means trouble on
	 * the way out.  exit(), not _exit(): LeakSanitizer checks at exit.
	 */
	exit(0);
}

/*
 * Run one suite in a child and print its line.  Adds its tests to *passed and
 * *failed; returns 0 when the suite ran to the end cleanly.
 */
static int run_suite(const char *name, void (*register_fn)(void), unsigned *passed,
		     unsigned *failed)
{
	struct suite_report *r = report;
	unsigned bad;
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	fflush(NULL); /* or the child would print the parent's buffered output again */
	pid = fork();
	if (pid < 0) {
		perror("unit-tests: fork");
		*failed += 1;
		return -1;
	}
	if (pid == 0)
		run_child(register_fn);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("unit-tests: waitpid");
			*failed += 1;
			return -1;
		}
	}

	if (r->done && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("suite %-12s %3u run, %3u passed, %3u failed\n", name, r->passed + r->failed,
		       r->passed, r->failed);
		*passed += r->passed;
		*failed += r->failed;
		return r->failed ? -1 : 0;
	}

	/*
	 * Died: every test not seen passing counts as failed, at least one.  A
	 * suite that died after its tests (a leak report at exit) keeps its counts.
	 */
	bad = r->done ? r->failed : r->tests - r->passed;
	if (!bad)
		bad = 1;
	/* on a line of its own: CUnit ends its lines late, the child may not have */
	printf("\nsuite %-12s ", name);
	if (WIFSIGNALED(status))
		printf("crashed: signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		printf("exited with status %d", WEXITSTATUS(status));
	if (r->current[0])
		printf(" in \"%s\"", r->current);
	else if (r->done)
		printf(" after its tests");
	printf("; %u passed, %u failed\n", r->passed, bad);
	*passed += r->passed;
	*failed += bad;
	return -1;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	unsigned passed = 0, failed = 0, suites = 0;
	int bad = 0;

	report = mmap(NULL, sizeof(*report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (report == MAP_FAILED) {
		perror("unit-tests: mmap");
		return 2;
	}
#define PP_SUITE(name)                                                                     \
	if (!only || strstr(#name, only)) {                                                \
		suites++;                                                                  \
		if (run_suite(#name, test_##name##__register, &passed, &failed))           \
			bad = 1;                                                           \
	}
#include "tests/unit/suites.def"
#undef PP_SUITE
	if (!suites) {
		fprintf(stderr, "unit-tests: no suite name contains \"%s\"\n", only);
		return 2;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return bad || failed ? 1 : 0;
}
