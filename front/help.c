/* SPDX-License-Identifier: MIT */
/*
 * help.c - pp's own help: its forms, each with what it does, printed by
 * `pp -h` and made into pp(1)'s parts by `pp --help-man=PART` (make man).
 *
 * One table serves both, so the page cannot drift from the help.
 * Not here: the analyzers' help (pp-analyze's), perf-prof's layout (perfprof.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/man.h"
#include "front/front.h"

/* pp's forms and what each does, for `pp -h` and pp(1) (make man). */
static const char *const pp_forms[][2] = {
	{ "pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND [ARGS]]", NULL },
	{ "pp record [pp-record options]", "record a capture" },
	{ "pp analyze FILE ANALYZER ...", "analyse a capture" },
	{ "pp fleet ANALYZER [OPTIONS] CAPTURE...", "many captures on a Dask cluster (pp fleet -h)" },
	{ "pp check [ANALYZER [OPTIONS]]", "whether it records on this machine (pp check -h)" },
	{ "pp list [FILTER]", "this machine's tracepoints" },
	{ "pp usdt list|add|del SPEC...", "USDT probes as uprobe events" },
	{ "pp kcore [-1|-2|-4|-8] [--string] ADDR|SYMBOL [COUNT]", "kernel memory" },
	{ "pp ANALYZER -h", "one analyzer's options" },
};

static const char pp_help_text[] =
	"`pp ANALYZER ...` records what the analyzer needs and analyses it live, like\n"
	"perf-prof: it runs `pp-record --for 'ANALYZER ...' -o - | pp-analyze - ANALYZER ...`.\n"
	"Ctrl-C ends both and prints the final report. --save FILE keeps the capture.\n"
	"`pp python [OPTIONS] -- SCRIPT [ARGS]`: for python, as for perf-prof, what follows\n"
	"-- is the script, not a command (#!/usr/bin/env -S pp python -e EVENTS --).\n";

void front_usage(FILE *fp)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++) {
		const char *form = pp_forms[i][0], *what = pp_forms[i][1];

		fprintf(fp, "%s%s", i ? "       " : "usage: ", form);
		if (what)
			fprintf(fp, "%*s%s", strlen(form) < 33 ? 35 - (int)strlen(form) : 3, "", what);
		fputc('\n', fp);
	}
	fprintf(fp, "\n%s\n", pp_help_text);
}

/* pp(1)'s commands: the forms that say what they do, as .TP items. */
static void help_man_commands(const char *const *forms)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++) {
		if (!pp_forms[i][1])
			continue;
		fputs(".TP\n", stdout);
		pp_man_escape(stdout, forms[i], strlen(forms[i]), true);
		fputc('\n', stdout);
		pp_man_escape(stdout, pp_forms[i][1], strlen(pp_forms[i][1]), true);
		fputc('\n', stdout);
	}
}

int front_help_man(const char *arg)
{
	const char *forms[PP_ARRAY_SIZE(pp_forms) + 1] = { NULL };
	const char *part = arg[10] == '=' ? arg + 11 : "";

	for (size_t i = 0; i < PP_ARRAY_SIZE(pp_forms); i++)
		forms[i] = pp_forms[i][0];
	if (!strcmp(part, "synopsis")) {
		pp_man_synopsis(stdout, forms);
	} else if (!strcmp(part, "description")) {
		pp_man_text(stdout, pp_help_text, PP_MAN_LEVEL_SECTION);
	} else if (!strcmp(part, "commands")) {
		help_man_commands(forms);
	} else {
		pp_err("'%s': the parts are synopsis, description, commands", arg);
		return 2;
	}
	return 0;
}
