/* SPDX-License-Identifier: MIT */
/*
 * perfprof.c - pp under the name perf-prof: a symlink named perf-prof to pp is
 * a drop-in, so its help is perf-prof's.
 *
 * perf-prof prints its help on stderr, in its own layout (" Usage: perf-prof
 * ...", " Available Profilers:" then one "   NAME   SUMMARY" line each), and
 * exits 129; scripts and perf-prof's test harness read it so.  The profilers
 * are pp's analyzers, listed from `pp-analyze help`, then perf-prof's tools
 * that are no analyzers (usdt, kcore: pp-record runs them).
 * Not here: pp's own help (help.c); perf-prof's error wording, which pp-record
 * keeps (PP_ENV_PERF_PROF_ERRORS, common/front-env.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/buf.h"
#include "front/front.h"

#define PERFPROF_HELP_EXIT 129

/* perf-prof's tools that are no analyzers, named by pp-record's first argument. */
static const struct {
	const char *name;
	const char *summary;	/* perf-prof's */
} tools[] = {
	{ "usdt", "User Statically-Defined Tracing." },
	{ "kcore", "Read kernel memory." },
};

bool front_is_tool(const char *name)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(tools); i++)
		if (!strcmp(name, tools[i].name))
			return true;
	return false;
}

/* A line of the analyzers' list of `pp-analyze help` ("  NAME  SUMMARY"), in perf-prof's layout. */
static void print_profiler(char *line)
{
	char *name = line + strspn(line, " ");
	char *end = name + strcspn(name, " \n");
	char *sum = end + strspn(end, " ");

	sum[strcspn(sum, "\n")] = '\0';
	*end = '\0';
	if (*name && *sum)
		fprintf(stderr, "   %-20s %s\n", name, sum);
}

int front_perfprof_help(const char *bindir)
{
	char path[PATH_MAX + 32], cmd[PATH_MAX + 64], line[1024];
	struct pp_buf text = PP_BUF_INIT;
	bool in_list = false;

	/* the list is pp-analyze's: read its help once, print it after the list */
	snprintf(cmd, sizeof(cmd), "'%s' help",
		 front_prog(bindir, "pp-analyze", path, sizeof(path)));
	FILE *fp = strchr(path, '\'') ? NULL : popen(cmd, "r");
	if (!fp) {
		pp_err("cannot run %s", path);
		return 2;
	}
	fprintf(stderr, " Usage: perf-prof profiler [PROFILER OPTION...] [help] [cmd [args...]]\n"
			"    or: perf-prof --symbols /path/to/bin\n\n"
			" Available Profilers:\n");
	while (fgets(line, sizeof(line), fp)) {
		pp_buf_adds(&text, line);
		if (!strcmp(line, "Analyzers:\n")) {
			in_list = true;
			continue;
		}
		if (!in_list)
			continue;
		if (line[0] != ' ') {
			in_list = false;
			continue;
		}
		print_profiler(line);
	}
	int st = pclose(fp);
	for (size_t i = 0; i < PP_ARRAY_SIZE(tools); i++)
		fprintf(stderr, "   %-20s %s\n", tools[i].name, tools[i].summary);
	fputc('\n', stderr);
	front_usage(stderr);
	fputs(pp_buf_str(&text), stderr);
	pp_buf_release(&text);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 2;
	return PERFPROF_HELP_EXIT;
}

int front_perfprof_analyzer_help(const char *bindir, const char *name)
{
	fprintf(stderr, " Usage: perf-prof %s [OPTION...]\n\n", name);
	int rc = front_is_tool(name) ? front_run_wait(bindir, "pp-record", name, "-h", true)
				     : front_run_wait(bindir, "pp-analyze", "help", name, true);
	return rc ? rc : PERFPROF_HELP_EXIT;
}
