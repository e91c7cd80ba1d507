/* SPDX-License-Identifier: MIT */
/*
 * cmd.c - pp-analyze's command table, and what its commands share.
 *
 * One table names every command with its entry point, its flags (where its name
 * goes on the command line, whether it runs on a capture and how that is read,
 * which listings show it) and its summary; main() and cmd_analyze() dispatch
 * through it, the help and the man page list from it.  What the commands share:
 * opening their capture, parsing a capture command's options, and the line said
 * after reading a cut or damaged capture (library code never prints it: the
 * caller knows whether a partial result is an analyzer's or a copy).  A
 * command's own work stays in its cmd-<name>.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/front-env.h"
#include "common/log.h"
#include "common/man.h"

int ana_cmd_parse(int argc, const char **argv, const struct pp_option *opts,
		  const char *const *usage, const char *help, char *err, size_t errsz)
{
	int n;

	argc--;	/* the command's name */
	argv++;
	if (pp_help_man(stdout, argc, argv, usage, opts, help ? help + 1 : NULL))
		return 1;	/* pp-analyze(1)'s part (make man) */
	n = pp_parse_options(argc, argv, opts, 0, err, errsz);
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, usage, opts);
		if (help)
			fputs(help, stdout);
		return 1;
	}
	if (n > 0)
		snprintf(err, errsz, !strcmp(argv[argc - n], ",")
			 ? "runs on its own: it does not combine with analyzers by ','"
			 : "unexpected argument '%s'", argv[argc - n]);
	return n ? -1 : 0;
}

void ana_tell_damage(const struct ana_session *s, const struct ppf_read_stats *st,
		     const char *copy)
{
	for (size_t i = 0; i < s->nr_azs; i++)
		if (!strcmp(s->azs[i]->name, "event-care"))
			return;	/* it reports the damage itself */
	if (copy && st->truncated && st->cut_mid_segment)
		pp_warn("%s: '%s' is cut inside segment %llu: the copy ends at its last whole segment",
			copy, s->path, (unsigned long long)st->last_seq + 1);
	/* a live stream has no index or trailer by design: only a cut segment is damage */
	else if (!copy && st->truncated && !(s->live && !st->cut_mid_segment))
		pp_warn("'%s' is truncated after segment %llu (offset %llu), last event at "
			"%llu.%06llu: the reports end there", s->path,
			(unsigned long long)st->last_seq, (unsigned long long)st->truncated_at,
			(unsigned long long)(st->last_time_ns / 1000000000ull),
			(unsigned long long)(st->last_time_ns % 1000000000ull / 1000));
	if (st->nr_corrupt && copy)
		pp_warn("%s: '%s': %llu corrupt segments skipped, %llu records lost: not in the copy",
			copy, s->path, (unsigned long long)st->nr_corrupt,
			(unsigned long long)st->records_lost);
	else if (st->nr_corrupt)
		pp_warn("'%s': %llu corrupt segments skipped, %llu records lost (details: "
			"pp-analyze %s event-care)", s->path, (unsigned long long)st->nr_corrupt,
			(unsigned long long)st->records_lost, s->path);
}

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
static const struct ana_cmd cmds[ANA_NR_CMDS] = {
	{ NULL, cmd_analyze, NULL, NULL, ANA_CMD_DEFAULT, 0,
	  "pp-analyze [-v] [-q] [--strict] [-j N] FILE|- [ANALYZER [OPTIONS]] "
	  "[, ANALYZER [OPTIONS]]..." },
	{ "info", cmd_info, "what a capture holds: host, command, events, losses, segments", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "dump", cmd_dump, "every record of a capture, decoded (for debugging)", NULL,
	  ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, PPF_READ_DIGESTS, NULL },
	{ "scrub", cmd_scrub, "a copy for a public bug report: names replaced by stable hashes",
	  NULL, ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
	{ "slice", cmd_slice, "a smaller self-contained capture: a time range, processes, events",
	  NULL, ANA_CMD_CAPTURE | ANA_CMD_LISTED | ANA_CMD_MAN, 0, NULL },
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
};

const struct ana_cmd *ana_cmd_at(size_t i)
{
	return i < PP_ARRAY_SIZE(cmds) ? &cmds[i] : NULL;
}

const struct ana_cmd *ana_cmd_find(const char *name, unsigned flags)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(cmds); i++)
		if ((name && cmds[i].name ? !strcmp(cmds[i].name, name) : name == cmds[i].name) &&
		    (cmds[i].flags & flags) == flags)
			return &cmds[i];
	return NULL;
}

const char *const *ana_cmd_synopsis(const char **v)
{
	size_t n = 0;

	for (size_t i = 0; i < PP_ARRAY_SIZE(cmds); i++)
		if (cmds[i].synopsis)
			v[n++] = cmds[i].synopsis;
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

/*
 * pp's live mode (pp sets PP_ENV_LIVE_RECORDER for its pp-analyze): an empty stream
 * means pp-record failed before it wrote anything, and it said why in one line.
 */
static bool recorder_said_why(const char *path, const struct ana_session *s)
{
	return !strcmp(path, "-") && getenv(PP_ENV_LIVE_RECORDER) &&
	       strstr(s->errmsg, "empty file") != NULL;
}

int ana_cmd_open(const char *path, unsigned read_flags, struct ana_session **s)
{
	if (!ana_session_open(path, read_flags, s)) {
		(*s)->registry = &ana_registry;
		return 0;
	}
	if (!recorder_said_why(path, *s))
		pp_err("%s", (*s)->errmsg);
	ana_session_free(*s);
	*s = NULL;
	return 2;
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
