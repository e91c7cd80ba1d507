/* SPDX-License-Identifier: MIT */
/*
 * cmdutil.c - what pp-analyze's commands share: opening the capture a command
 * runs on, parsing a capture command's options, and the line said after reading
 * a cut or damaged capture (library code never prints it: the caller knows
 * whether a partial result is an analyzer's or a copy).
 *
 * The commands (cmd-<name>.c) and the command table (cmd.c) call it; it calls
 * nothing of theirs: the table points at the commands, so what they share lies
 * below both.
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
