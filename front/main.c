/* SPDX-License-Identifier: MIT */
/*
 * main.c - `pp`: perf-prof's command surface on top of the two programs.
 *
 *   pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND...]
 *       = pp-record --for 'ANALYZER OPTIONS' -o - [-- COMMAND] | pp-analyze - ANALYZER OPTIONS
 *                                    (live.c)
 *   pp python [OPTIONS] -- SCRIPT [ARGS]   (perf-prof's form: no COMMAND for python)
 *   pp record ... / pp analyze ...   the two programs (progs.c)
 *   pp list [FILTER]                 this machine's tracepoints
 *   pp usdt ... / pp kcore ...       perf-prof's live tools: pp-record usdt/kcore ...
 *   pp -h | pp ANALYZER -h           the analyzers / one analyzer's help (help.c)
 *   pp fleet ANALYZER ... CAPTURE... one analyzer over many captures on Dask (fleet.c)
 *
 * Under the name perf-prof (a symlink) help and errors take perf-prof's
 * layout (perfprof.c).  Here: the dispatch, `pp list` and `pp --version`.
 * The files of front/ share front.h; their prefix is front_.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/front-env.h"
#include "common/version.h"
#include "front/fleet.h"
#include "front/front.h"

static int list_tracepoints(const char *filter)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256], line[512];
	FILE *fp = NULL;

	for (size_t i = 0; i < PP_ARRAY_SIZE(roots) && !fp; i++) {
		snprintf(path, sizeof(path), "%s/available_events", roots[i]);
		fp = fopen(path, "r");
	}
	if (!fp && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		fp = fopen("/sys/kernel/tracing/available_events", "r");
	if (!fp) {
		pp_err("cannot read the tracepoint list: tracefs is not mounted at /sys/kernel/tracing "
		       "and cannot be mounted here (%s)", strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), fp))
		if (!filter || strstr(line, filter))
			fputs(line, stdout);
	fclose(fp);
	return 0;
}

/*
 * `pp --version`: pp's own line, then those of the two programs it runs (each
 * found as they are for any command), so a pp beside a pp-record of another
 * build shows it.  Exit status: the first program that failed, else 0.
 */
static int print_versions(const char *bindir)
{
	pp_version_print(stdout, "pp", NULL);
	int rc = front_run_wait(bindir, "pp-record", "--version", NULL, false);
	int rc2 = front_run_wait(bindir, "pp-analyze", "--version", NULL, false);

	return rc ? rc : rc2;
}

/* The directory of pp's executable into @bindir ("" when /proc cannot tell). */
static void find_bindir(char *bindir, size_t sz)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	bindir[0] = '\0';
	if (n <= 0)
		return;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (slash) {
		*slash = '\0';
		snprintf(bindir, sz, "%s", self);
	}
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/*
 * What pp-record answers itself: perf-prof's address lookup (--symbols: it
 * reads this machine's binaries) and tools (usdt, kcore), -h included (under
 * perf-prof's name: its help layout).  Return: an exit status; or it does not.
 */
static int run_recorder_tool(const char *bindir, bool perfprof_name, int argc, const char **argv)
{
	for (int i = 2; perfprof_name && front_is_tool(argv[1]) && i < argc; i++)
		if (is_help(argv[i]))
			return front_perfprof_analyzer_help(bindir, argv[1]);
	/* an unreadable binary, a missing /proc/kcore: said as perf-prof says it */
	if (perfprof_name)
		setenv(PP_ENV_PERF_PROF_ERRORS, "1", 1);
	front_exec(bindir, "pp-record", argc - 1, argv + 1);
}

/* The forms handed to one of the programs as they are.  Return: only if @argv is none. */
static void exec_program_forms(const char *bindir, int argc, const char **argv)
{
	if (!strcmp(argv[1], "record"))
		front_exec(bindir, "pp-record", argc - 2, argv + 2);
	if (!strcmp(argv[1], "analyze"))
		front_exec(bindir, "pp-analyze", argc - 2, argv + 2);
	if (!strcmp(argv[1], "help") && argc > 2 && front_is_tool(argv[2]))
		front_exec(bindir, "pp-record", 2, (const char *[]){ argv[2], "-h" });
	if (!strcmp(argv[1], "help"))
		front_exec(bindir, "pp-analyze", argc - 1, argv + 1);
}

int main(int argc, const char **argv)
{
	char bindir[PATH_MAX];
	const char *base = strrchr(argv[0], '/');
	/* perf-prof's name: a symlink named perf-prof to pp is a drop-in (perfprof.c) */
	bool perfprof_name = !strcmp(base ? base + 1 : argv[0], "perf-prof");

	pp_progname = "pp";
	find_bindir(bindir, sizeof(bindir));
	if (argc == 2 && !strncmp(argv[1], "--help-man", 10))
		return front_help_man(argv[1]);
	if (argc >= 2 && !strncmp(argv[1], "--symbols", 9))
		return run_recorder_tool(bindir, perfprof_name, argc, argv);
	if (perfprof_name && (argc < 2 || is_help(argv[1])))
		return front_perfprof_help(bindir);
	if (argc >= 2 && front_is_tool(argv[1]))
		return run_recorder_tool(bindir, perfprof_name, argc, argv);
	if (argc < 2 || is_help(argv[1])) {
		front_usage(stdout);
		fflush(stdout);
		front_exec(bindir, "pp-analyze", 1, (const char *[]){ "help" });
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return print_versions(bindir);
	if (!strcmp(argv[1], "fleet"))
		return front_fleet_main(argc - 2, argv + 2, bindir);
	if (!strcmp(argv[1], "check"))
		return front_check_main(bindir, argc - 2, argv + 2);
	exec_program_forms(bindir, argc, argv);
	/* perf-prof's `list -h` is help, as for any profiler */
	for (int i = 2; perfprof_name && i < argc && strcmp(argv[i], "--"); i++)
		if (is_help(argv[i]))
			return front_perfprof_analyzer_help(bindir, argv[1]);
	if (!strcmp(argv[1], "list"))
		return list_tracepoints(argc > 2 ? argv[2] : NULL);
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (is_help(argv[i]))
			front_exec(bindir, "pp-analyze", 2, (const char *[]){ "help", argv[1] });
	return front_live_run(bindir, argc - 1, argv + 1);
}
