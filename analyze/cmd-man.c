/* SPDX-License-Identifier: MIT */
/*
 * cmd-man.c - `pp-analyze --help-man[=PART]`: pp-analyze(1)'s generated parts.
 *
 * Every part comes from what prints the help: the usage lines and text of
 * `pp-analyze help`, the commands of the command table (cmd.c) with their own
 * --help-man, and for each
 * analyzer of the registry its summary, usage, option table and examples
 * (`pp-analyze help NAME`), with the common options once.  docs/man/mkman.sh
 * puts the parts into docs/man/pp-analyze.1.in (and the analyzer list into
 * pp.1.in).  Not here: the prose around them, which is in those templates.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"
#include "common/man.h"
#include "common/plan.h"

static void man_escape(FILE *fp, const char *s)
{
	pp_man_escape(fp, s, strlen(s), true);
}

/* One analyzer, as `pp-analyze help NAME` prints it but without the common options. */
static void man_analyzer(FILE *fp, const struct pp_analyzer *an)
{
	const char *usage[] = { an->ops->usage, NULL };
	const struct pp_option *own = an->plan->options;
	const struct pp_analyzer *target;
	const char *alias;

	fprintf(fp, ".SS %s\n", an->name);
	man_escape(fp, an->ops->summary);
	fputc('\n', fp);
	for (size_t i = 0; (alias = ana_analyzer_alias_at(i, &target)); i++)
		if (target == an) {
			fputs(".PP\nAlso named \\fB", fp);
			pp_man_escape(fp, alias, strlen(alias), false);
			fputs("\\fR.\n", fp);
		}
	fputs(".PP\n", fp);
	pp_man_synopsis(fp, usage);
	if (own && own->type != PP_OPT_T_END) {
		if (own->type != PP_OPT_T_GROUP)
			pp_man_heading(fp, "Options", 7, PP_MAN_LEVEL_SUB);
		pp_man_options(fp, own, PP_MAN_LEVEL_SUB);
	}
	if (an->ops->examples) {
		pp_man_heading(fp, "Examples", 8, PP_MAN_LEVEL_SUB);
		pp_man_text(fp, an->ops->examples, PP_MAN_LEVEL_SUB);
	}
}

/* A command: its summary, then what it prints for --help-man (usage, options, text). */
static void man_command(FILE *fp, const struct ana_cmd *c)
{
	fprintf(fp, ".SS %s\n", c->name);
	man_escape(fp, c->summary);
	fputc('\n', fp);
	fflush(fp);
	ana_cmd_print_help(c, "--help-man");	/* pp_help_man() there, on stdout */
	fflush(stdout);
}

static void man_part(FILE *fp, const char *part, const struct pp_option *opts)
{
	const char *usage[ANA_NR_CMDS + 1];
	const struct ana_cmd *c;

	if (!strcmp(part, "synopsis")) {
		pp_man_synopsis(fp, ana_cmd_synopsis(usage));
	} else if (!strcmp(part, "description")) {
		pp_man_text(fp, ana_help_text, PP_MAN_LEVEL_SECTION);
	} else if (!strcmp(part, "options")) {
		pp_man_options(fp, opts, PP_MAN_LEVEL_SECTION);
	} else if (!strcmp(part, "commands")) {
		for (size_t i = 0; (c = ana_cmd_at(i)); i++)
			if (c->flags & ANA_CMD_MAN)
				man_command(fp, c);
	} else if (!strcmp(part, "analyzers")) {
		for (size_t i = 0; i < ana_analyzer_count(); i++)
			man_analyzer(fp, ana_analyzer_at(i));
	} else if (!strcmp(part, "analyzer-list")) {
		for (size_t i = 0; i < ana_analyzer_count(); i++) {
			const struct pp_analyzer *an = ana_analyzer_at(i);

			fprintf(fp, ".TP\n\\fB%s\\fR\n", an->name);
			man_escape(fp, an->ops->summary);
			fputc('\n', fp);
		}
	} else if (!strcmp(part, "common")) {
		pp_man_options(fp, pp_common_options, PP_MAN_LEVEL_SECTION);
	}
}

int ana_man_print(FILE *fp, const char *arg, const struct pp_option *opts)
{
	static const char *const parts[][2] = {
		{ "synopsis", "SYNOPSIS" },
		{ "description", "DESCRIPTION" },
		{ "options", "OPTIONS" },
		{ "commands", "COMMANDS" },
		{ "analyzers", "ANALYZERS" },
		{ "analyzer-list", NULL },	/* pp(1)'s: the analyzers section has them */
		{ "common", "\"COMMON ANALYZER OPTIONS\"" },
	};

	if (!strcmp(arg, "--help-man")) {
		for (size_t i = 0; i < PP_ARRAY_SIZE(parts); i++) {
			if (!parts[i][1])
				continue;
			fprintf(fp, ".SH %s\n", parts[i][1]);
			man_part(fp, parts[i][0], opts);
		}
		return 0;
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(parts); i++)
		if (!strncmp(arg, "--help-man=", 11) && !strcmp(arg + 11, parts[i][0])) {
			man_part(fp, parts[i][0], opts);
			return 0;
		}
	return -1;
}
