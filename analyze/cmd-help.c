/* SPDX-License-Identifier: MIT */
/*
 * cmd-help.c - `pp-analyze help [NAME]`, and `NAME --help` of a command.
 *
 * Everything here reads the command table (cmd.c) and the analyzer registry: the
 * usage lines, the commands `pp-analyze help` lists, and the help of one command
 * ("NAME - summary", then what the command prints for --help) or one analyzer.
 * `pp-analyze help NAME`, `pp-analyze NAME --help` and `pp-analyze FILE NAME --help`
 * print the same.  Not here: the positional `help` after an analyzer (evhelp.c),
 * the man page's parts (cmd-man.c).
 */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"

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
		fprintf(fp, "  %-14s %s\n", ana_analyzer_at(i)->name, ana_analyzer_at(i)->ops->summary);
	fprintf(fp, "\n'pp-analyze help ANALYZER' or 'pp-analyze FILE ANALYZER -h' shows an analyzer's options.\n");
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
