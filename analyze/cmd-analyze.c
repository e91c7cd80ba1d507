/* SPDX-License-Identifier: MIT */
/*
 * cmd-analyze.c - `pp-analyze FILE ANALYZER [OPTIONS] [, ANALYZER [OPTIONS]]...`
 *
 * Splits the command line into analyzer instances (instance.c parses each
 * one's options), opens the capture, sets the --time range, and runs one replay
 * for all of them: on -j threads where they can (parallel.c), else in one pass.
 * A capture command (`FILE info`, dump, scrub, slice: the command table's
 * ANA_CMD_CAPTURE) is the table's to run (cmd.c), not here.  Only the command
 * layer exits on bad input, with status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/check.h"
#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/err.h"
#include "common/log.h"
#include "common/units.h"

/* Build one analyzer instance from argv[0..argc) (argv[0] is its name). */
static struct pp_az *az_new(int argc, const char **argv, const struct ana_cmd *cmds,
			    bool *help)
{
	struct pp_az *az = ana_az_parse(argc, argv, cmds, help);
	char err[512];

	/* --state-out: a state in place of the analyzer's result (analyze/state/) */
	if (az->opt.state_out && !*help && ana_state_az_new(az, &ana_registry, err, sizeof(err)))
		pp_die("%s: %s", az->name, err);
	if (ana_out_open(&az->out, az->opt.output, az->opt.format, err, sizeof(err)))
		pp_die("%s: %s", az->name, err);
	return az;
}

static void set_range(struct ana_session *s, struct pp_az **azs, size_t nr, uint64_t first_ns)
{
	const char *range = NULL;

	for (size_t i = 0; i < nr; i++) {
		if (!azs[i]->opt.time_range)
			continue;
		if (range && strcmp(range, azs[i]->opt.time_range))
			pp_die("--time differs between analyzers: one pass has one range");
		range = azs[i]->opt.time_range;
	}
	if (!range)
		return;
	if (ana_time_range_parse(range, first_ns, &s->range_start_ns, &s->range_end_ns))
		pp_die("bad --time '%s': use START,END with times like 12.5 or +2s", range);
	if (s->range_end_ns && s->range_end_ns < s->range_start_ns)
		pp_die("--time '%s': the end is before the start", range);
	/*
	 * A state is one range of a capture that others will be added to: it must see
	 * what a whole replay sees at the range's start (task names, mappings, symbols,
	 * counter bases), so the segments before it are read, their samples dropped.
	 */
	for (size_t i = 0; i < nr; i++)
		if (ana_state_recording(azs[i]))
			return;
	if (s->range_start_ns && ppf_reader_seek_time(s->r, s->range_start_ns))
		pp_die("cannot seek in '%s'", s->path);
}

int cmd_analyze(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	int *sl_argc = NULL;
	const char ***sl_argv = NULL;
	struct ppf_read_stats pst;
	const char *path = argv[0];
	struct ana_session *s;
	struct ppf_record first;
	struct pp_az **azs = NULL;
	size_t nr = 0;
	int rc, status = 0;
	bool help = false;

	/* analyzer chain: NAME opts , NAME opts ... */
	for (int i = 1; i < argc;) {
		int j = i;
		while (j < argc && strcmp(argv[j], ","))
			j++;
		if (j == i)
			pp_die("empty analyzer between ','");
		azs = pp_xrealloc(azs, (nr + 1) * sizeof(*azs));
		sl_argc = pp_xrealloc(sl_argc, (nr + 1) * sizeof(*sl_argc));
		sl_argv = pp_xrealloc(sl_argv, (nr + 1) * sizeof(*sl_argv));
		sl_argc[nr] = j - i;
		sl_argv[nr] = argv + i;
		bool h = false;
		azs[nr++] = az_new(j - i, argv + i, ctx->cmds, &h);
		help |= h;
		i = j + 1;
	}
	/* one pass front to back, or parts that open their own: a foreign file may stream */
	if (ana_cmd_open(path, ctx->read_flags | ANA_OPEN_IMPORT_STREAM, &s)) {
		for (size_t i = 0; i < nr; i++)
			ana_az_free(azs[i]);
		free(azs);
		free(sl_argc);
		free(sl_argv);
		return 2;
	}
	s->azs = azs;
	s->nr_azs = nr;
	for (size_t i = 0; i < nr; i++)
		azs[i]->s = s;
	if (!help && ctx->jobs > 1)
		ana_inl_prefetch_early(s);
	rc = ana_session_load_meta(s, &first);
	if (rc >= 0 && help) {
		for (size_t i = 0; i < nr && !status; i++)
			status = ana_event_help(s, azs[i]) ? 2 : 0;
	} else if (rc < 0) {
		pp_err("reading '%s': %s", path, ppf_reader_errmsg(s->r));
		status = 1;
	} else {
		set_range(s, azs, nr, rc == 0 ? first.time_ns : 0);
		/* init first: whether the instances can run in parts is known after it (top's -i) */
		/* live, pp recorded each plan itself: a stored capture may lack what one needs;
		 * found before init (which adds an analyzer's default events to its -e), said
		 * after it succeeds (an error of its options is the one line then) */
		char **warn = pp_xcalloc(nr, sizeof(*warn));

		for (size_t i = 0; i < nr && strcmp(path, "-"); i++)
			warn[i] = ana_check_warning_dup(s, azs[i], sl_argc[i], sl_argv[i]);
		int irc = ana_replay_init(s);

		for (size_t i = 0; i < nr; i++) {
			if (warn[i] && !irc)
				pp_warn("%s", warn[i]);
			free(warn[i]);
		}
		free(warn);
		int pst_status = irc ? ana_replay_status(irc) :
			ana_parallel(s, &first, rc == 0, ctx->jobs, sl_argc,
				     (const char *const *const *)sl_argv, ctx->read_flags, &pst);
		if (irc) {
			status = pst_status;
		} else if (pst_status >= 0) {
			status = pst_status;
			if (!status)
				ana_tell_damage(s, &pst, NULL);
		} else {
			rc = ana_replay(s, &first, rc == 0);
			status = ana_replay_status(rc);
			if (!rc)
				ana_tell_damage(s, ppf_reader_stats(s->r), NULL);
		}
	}
	free(sl_argc);
	free(sl_argv);
	for (size_t i = 0; i < nr; i++) {
		if (azs[i]->exit_status && !status)
			status = azs[i]->exit_status;
		ana_az_free(azs[i]);
	}
	free(azs);
	ana_inl_prefetch_join(s->inl_prefetch);	/* it uses the session's resolvers */
	ana_session_free(s);
	return status;
}
