/* SPDX-License-Identifier: MIT */
/*
 * main.c - pp-analyze: global options, then the command the first word names
 * (cmd.c's table): merge, report, diff, help, or a capture and what runs on it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"
#include "common/version.h"
#include "format/format.h"

static void on_signal(int sig)
{
	(void)sig;
	pp_stop = 1;
}

/* SIGUSR1: the -i interval output now; SIGUSR2: the analyzers' own statistics (replay.c). */
static void on_usr(int sig)
{
	if (sig == SIGUSR1)
		ana_interval_now = 1;
	else
		ana_print_stat_now = 1;
}

int main(int argc, const char **argv)
{
	bool strict = false, version = false;
	int verbose = 0, quiet = 0, jobs = 0;
	char err[256], bug[256];
	const struct pp_option opts[] = {
		PP_OPT_COUNT('v', "verbose", &verbose, "more messages"),
		PP_OPT_COUNT('q', "quiet", &quiet, "no informational messages (-qq: no warnings either)"),
		PP_OPT_BOOL(0, "strict", &strict, "a truncated or corrupt capture is an error"),
		PP_OPT_INT('j', "jobs", &jobs, "n",
			   "replay a file on n threads (default: $PP_JOBS, else the CPUs); 1 for one"),
		PP_OPT_BOOL('V', "version", &version, "print the version"),
		PP_OPT_END(),
	};
	const char *usage[] = { "pp-analyze [-v] [-q] [--strict] [-j N] FILE|- [ANALYZER [OPTIONS]] [, ...]", NULL };

	pp_progname = "pp-analyze";
	ana_heap_init();
	if (argc == 2 && !strncmp(argv[1], "--help-man", 10)) {	/* make man: pp-analyze(1) */
		if (!ana_man_print(stdout, argv[1], opts))
			return 0;
		pp_err("'%s': the parts are synopsis, description, options, commands, analyzers,"
		       " analyzer-list, common", argv[1]);
		return 2;
	}
	int n = pp_parse_options(argc - 1, argv + 1, opts, PP_PARSE_STOP_AT_NON_OPTION, err, sizeof(err));
	if (n == PP_OPT_HELP) {
		ana_general_help(stdout);
		printf("\nOptions (before FILE):");
		pp_usage_print(stdout, NULL, opts);
		return 0;
	}
	if (n < 0) {
		pp_err("%s", err);
		pp_usage_print(stderr, usage, opts);
		return 2;
	}
	if (version) {
		char fmt[64];

		snprintf(fmt, sizeof(fmt), "capture format %d.%d", PPF_VERSION_MAJOR,
			 PPF_VERSION_MINOR);
		pp_version_print(stdout, "pp-analyze", fmt);
		return 0;
	}
	pp_log_level = quiet > 1 ? PP_LOG_SILENT : quiet ? PP_LOG_QUIET : verbose;
	/* the analyzer contract, checked before any analyzer runs (a few microseconds) */
	if (ana_registry_check(bug, sizeof(bug)))
		pp_die("internal error: %s", bug);
	argv++;
	if (n == 0) {
		pp_err("missing capture file");
		pp_usage_print(stderr, usage, NULL);
		fprintf(stderr, "'pp-analyze help' lists the analyzers\n");
		return 2;
	}
	/* a command whose name goes first (merge, report, diff, help) */
	const struct ana_cmd *c = ana_cmd_find(argv[0], ANA_CMD_FIRST);
	struct ana_cmd_ctx ctx = { .read_flags = strict ? PPF_READ_STRICT : 0, .cmds = ana_cmds };

	if (c && ((c->flags & ANA_CMD_NAME_WINS) || access(argv[0], F_OK))) {
		/* -h or --help right after NAME: `pp-analyze help NAME` */
		if (!(c->flags & ANA_CMD_OWN_HELP) && n > 1 && ana_help_asked(1, argv + 1))
			return ana_command_help(stdout, c->name) ? 0 : 2;
		return c->run(n, argv, &ctx);
	}
	/* NAME without a capture: its help if asked (`pp-analyze dump --help`), else what is missing */
	if (strcmp(argv[0], "-") && access(argv[0], F_OK) && ana_name_known(argv[0])) {
		if (ana_help_asked(n - 1, argv + 1))
			return ana_name_help(stdout, argv[0]) ? 0 : 2;
		pp_err("missing capture file before '%s': pp-analyze FILE %s ...", argv[0], argv[0]);
		return 2;
	}
	/* a live stream ends when pp-record ends; let it see the Ctrl-C and finish first */
	if (!strcmp(argv[0], "-"))
		signal(SIGINT, SIG_IGN);
	else
		signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_DFL);
	/* handlers, not SIG_IGN: a process a python script starts must not inherit them */
	signal(SIGUSR1, on_usr);
	signal(SIGUSR2, on_usr);
	if (jobs < 0) {
		pp_err("-j %d: the number of threads is 1 or more", jobs);
		return 2;
	}
	ctx.jobs = ana_parallel_jobs(jobs);
	/* FILE [NAME|ANALYZER ...] */
	return ana_cmd_run_file(n, argv, &ctx);
}
