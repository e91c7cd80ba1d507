/* SPDX-License-Identifier: MIT */
/*
 * cmd.c - pp-analyze's command table: what runs for a command line, and the help
 * read from the table.
 *
 * One table names every command with its entry point, its flags (where its name
 * goes on the command line, whether it runs on a capture and how that is read,
 * which listings show it) and its summary.  main() dispatches the first word
 * through it, ana_cmd_run_file() the word after a capture; the help lists from it
 * (`pp-analyze help [NAME]`, `NAME --help`, the usage lines), and so does the man
 * page (cmd-man.c).  The `help` command is here, not in a cmd-help.c: it reads the
 * table that points at it.  A command's own work stays in its cmd-<name>.c, what
 * the commands share in cmdutil.c: the table points at them, they call nothing
 * of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"
#include "common/man.h"

/* The positional `help` (evhelp.c), as `pp-analyze help help` and the man page tell it. */
static int positional_help(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	static const char *const usage[] = {
		"pp-analyze FILE ANALYZER -e EVENTS [OPTIONS] help", NULL,
	};
	static const char text[] =
		"A positional 'help' after any analyzer prints, for each event its -e selects, the\n"
		"format text stored in the capture (the fields a filter, an expression or key= can\n"
		"use), then the analyzer's command line with what was given filled in and the rest\n"
		"offered in [brackets], '.' standing for a value to choose.  Nothing is replayed.\n"
		"\nEXAMPLES\n"
		"  pp-analyze pp.capture trace -e sched:sched_wakeup help\n"
		"  pp-analyze pp.capture top -e 'sched:sched_switch//key=prev_pid/' help\n";

	(void)ctx;
	if (pp_help_man(stdout, argc - 1, argv + 1, usage, NULL, text))
		return 0;
	pp_usage_print(stdout, usage, NULL);
	printf("\n%s", text);
	return 0;
}

/*
 * Every command, in the order of the listings: the usage lines (the default first),
 * `pp-analyze help`'s commands, pp-analyze(1)'s COMMANDS.
 */
const struct ana_cmd ana_cmds[ANA_NR_CMDS + 1] = {
	{ NULL, cmd_analyze, NULL, NULL, ANA_CMD_DEFAULT, 0,
	  "pp-analyze [-v] [-q] [--strict] [-j N] FILE|- [ANALYZER [OPTIONS]] "
	  "[, ANALYZER [OPTIONS]]..." },
	{ "info", cmd_info, "what a capture holds: host, command, events, losses, segments", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_FILE_ALONE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "check", cmd_check, "can this capture give ANALYZER [OPTIONS] a complete answer", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "dump", cmd_dump, "every record of a capture, decoded (for debugging)", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, PPF_READ_DIGESTS, NULL },
	{ "scrub", cmd_scrub, "a copy for a public bug report: names replaced by stable hashes",
	  NULL, ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "slice", cmd_slice, "a smaller self-contained capture: a time range, processes, events",
	  NULL, ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "import", cmd_import, "a perf.data or trace.dat written out as a pp capture", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "merge", cmd_merge, "add states of one analyzer and its options into one state", NULL,
	  ANA_CMD_FIRST, 0, "pp-analyze merge A.state B.state... [-o OUT.state]" },
	/*
	 * "report" means three things: this command, which prints the result of states (what
	 * an analyzer's finish() prints after a replay: its "result" in the code); the report
	 * analyzer (analyzers/report.c) and its engine (analyze/report/), an HTML "report
	 * page"; `pp-analyze help report` is the analyzer's, so the command has no summary.
	 */
	{ "report", cmd_report, NULL, NULL, ANA_CMD_FIRST | ANA_CMD_OWN_HELP, 0,
	  "pp-analyze report X.state... [--format text|json|csv] [-o FILE]" },
	{ "diff", cmd_diff, "an analyzer's reports of two captures or states, key by key", NULL,
	  ANA_CMD_FIRST | ANA_CMD_MAN, 0,
	  "pp-analyze diff [--fail-if EXPR] BEFORE AFTER [ANALYZER [OPTIONS]]" },
	/* its help is the positional `help`'s; `pp-analyze help -h` is `pp-analyze help` */
	{ "help", cmd_help, "the stored format of each selected event, and a command template",
	  positional_help, ANA_CMD_FIRST | ANA_CMD_NAME_WINS | ANA_CMD_OWN_HELP | ANA_CMD_MAN, 0,
	  "pp-analyze help [ANALYZER]" },
	{ 0 },
};

const struct ana_cmd *ana_cmd_at(size_t i)
{
	return i < ANA_NR_CMDS ? &ana_cmds[i] : NULL;
}

const struct ana_cmd *ana_cmd_find(const char *name, unsigned flags)
{
	for (const struct ana_cmd *c = ana_cmds; c->run; c++)
		if ((name && c->name ? !strcmp(c->name, name) : name == c->name) &&
		    (c->flags & flags) == flags)
			return c;
	return NULL;
}

/* The first command that has every flag of @flags, whatever its name. */
static const struct ana_cmd *cmd_with(unsigned flags)
{
	for (const struct ana_cmd *c = ana_cmds; c->run; c++)
		if ((c->flags & flags) == flags)
			return c;
	return NULL;
}

const char *const *ana_cmd_synopsis(const char **v)
{
	size_t n = 0;

	for (size_t i = 0; i < ANA_NR_CMDS; i++)
		if (ana_cmds[i].synopsis)
			v[n++] = ana_cmds[i].synopsis;
	v[n] = NULL;
	return v;
}

void ana_cmd_print_help(const struct ana_cmd *c, const char *how)
{
	const char *argv[] = { c->name, how, NULL };
	struct ana_cmd_ctx ctx = { 0 };

	(c->help ? c->help : c->run)(2, argv, &ctx);
}

bool ana_help_asked(int argc, const char *const *argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], ",") && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

int ana_cmd_run_on(const struct ana_cmd *c, const char *path, int argc, const char **argv,
		   const struct ana_cmd_ctx *ctx)
{
	struct ana_cmd_ctx on = *ctx;
	int status;

	/* its help needs no capture, and reads as `pp-analyze help NAME` */
	if (ana_help_asked(argc - 1, argv + 1))
		return ana_command_help(stdout, c->name) ? 0 : 2;
	if (ana_cmd_open(path, ctx->read_flags | c->read_flags, &on.s))
		return 2;
	status = c->run(argc, argv, &on);
	ana_session_free(on.s);
	return status;
}

int ana_cmd_run_file(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	const char *alone[] = { argv[0], NULL, NULL };
	const struct ana_cmd *c;

	if (argc < 2) {	/* FILE alone: the command that runs then (info) */
		c = cmd_with(ANA_CMD_FILE_ALONE);
		alone[1] = c->name;
		return ana_cmd_run_on(c, argv[0], 1, alone + 1, ctx);
	}
	c = ana_cmd_find(argv[1], ANA_CMD_CAPTURE);
	if (c)
		return ana_cmd_run_on(c, argv[0], argc - 1, argv + 1, ctx);
	return cmd_with(ANA_CMD_DEFAULT)->run(argc, argv, ctx);
}

const char ana_help_text[] =
	"Replays a capture made by pp-record through analyzers (FILE '-' reads a live stream).\n"
	"Several analyzers separated by ',' run over one pass of the capture.\n"
	"-j N replays a file on N threads (default: the CPUs) where every analyzer has a\n"
	"mergeable state: its parts are merged as --state-out states are, byte for byte.\n"
	"An aggregating analyzer given --state-out FILE writes its state instead of its report:\n"
	"'merge' adds states of the same analyzer and options (of several captures, or of\n"
	"--time ranges of one), 'report' prints a state as the analyzer prints after a replay.\n"
	"'diff' compares an analyzer's reports of two captures or states key by key.\n";

void ana_general_help(FILE *fp)
{
	const char *usage[ANA_NR_CMDS + 1];
	const struct ana_cmd *c;

	ana_cmd_synopsis(usage);
	fprintf(fp, "usage: %s\n", usage[0]);
	for (size_t i = 1; usage[i]; i++)
		fprintf(fp, "       %s\n", usage[i]);
	fprintf(fp, "\n%s\nCommands:\n", ana_help_text);
	for (size_t i = 0; (c = ana_cmd_at(i)); i++)
		if (c->flags & ANA_CMD_LISTED)
			fprintf(fp, "  %-14s %s\n", c->name, c->summary);
	fprintf(fp, "\nAnalyzers:\n");
	for (size_t i = 0; i < ana_analyzer_count(); i++)
		fprintf(fp, "  %-14s %s\n", ana_analyzer_at(i)->name,
			ana_analyzer_at(i)->ops->summary);
	fprintf(fp, "\n'pp-analyze help ANALYZER' or 'pp-analyze FILE ANALYZER -h' shows an "
		"analyzer's options.\n");
}

bool ana_command_help(FILE *fp, const char *name)
{
	const struct ana_cmd *c = ana_cmd_find(name, 0);

	if (!c || !c->summary)
		return false;
	fflush(fp);
	fprintf(fp, "%s - %s\n\n", c->name, c->summary);
	fflush(fp);
	ana_cmd_print_help(c, "--help");	/* needs no capture */
	return true;
}

bool ana_name_known(const char *name)
{
	return ana_cmd_find(name, ANA_CMD_CAPTURE) || ana_analyzer_find(name);
}

bool ana_name_help(FILE *fp, const char *name)
{
	const struct pp_analyzer *an = ana_analyzer_find(name);

	if (!an)
		return ana_command_help(fp, name);
	ana_analyzer_help(fp, an);
	return true;
}

int cmd_help(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && !ana_help_asked(1, argv + 1)) {
		if (ana_name_help(stdout, argv[1]))
			return 0;
		pp_err("no analyzer or command named '%s' ('pp-analyze help' lists them)", argv[1]);
		return 2;
	}
	ana_general_help(stdout);
	return 0;
}
