/* SPDX-License-Identifier: MIT */
/*
 * cmd-analyze.c - `pp-analyze FILE ANALYZER [OPTIONS] [, ANALYZER [OPTIONS]]...`
 *
 * Splits the command line into analyzer instances, parses each one's
 * options (its own table plus the common one), opens the capture, and runs
 * one replay for all of them.  Built-in commands (info, dump) bypass the
 * replay.  Only this layer exits on bad input, with status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/share.h"
#include "analyze/state/state.h"
#include "common/err.h"
#include "common/log.h"
#include "common/man.h"
#include "common/units.h"

/* The full table of an instance: its own options, then the common ones. */
static struct pp_option *az_table(struct pp_az *az, struct pp_option **common)
{
	struct pp_option *own = pp_opts_rebase(az->plan->options, az->opts, 2);
	size_t n = 0;

	*common = pp_opts_rebase(pp_common_options, &az->opt, 0);
	while (own[n].type != PP_OPT_T_END)
		n++;
	own[n] = (struct pp_option){ .type = PP_OPT_T_INCLUDE, .include = *common };
	own[n + 1] = (struct pp_option){ .type = PP_OPT_T_END };
	return own;
}

void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an)
{
	struct pp_az az = { 0 };
	struct pp_option *common, *tbl;
	const char *usage[] = { an->ops->usage, NULL };

	ana_az_bind(&az, an);
	az.opts = pp_xcalloc(1, an->plan->opts_size ? an->plan->opts_size : 1);
	tbl = az_table(&az, &common);
	fprintf(fp, "%s - %s\n\n", an->name, an->ops->summary);
	pp_usage_print(fp, usage, tbl);
	if (an->ops->examples)
		fprintf(fp, "\nEXAMPLES\n%s", an->ops->examples);
	free(tbl);
	free(common);
	free(az.opts);
}

static PP_NORETURN void unknown_analyzer(const char *name)
{
	if (!strcmp(name, "help")) {
		pp_err("'help' goes after an analyzer and its events: pp-analyze FILE ANALYZER -e EVENTS help"
		       " ('pp-analyze help' lists the analyzers)");
		exit(2);
	}
	const struct ana_cmd *c;

	pp_err("unknown analyzer or command '%s'", name);
	fprintf(stderr, "  available:");
	for (size_t i = 0; (c = ana_cmd_at(i)); i++)
		if (c->flags & ANA_CMD_LISTED)
			fprintf(stderr, " %s", c->name);
	for (size_t i = 0; i < ana_analyzer_count(); i++)
		fprintf(stderr, " %s", ana_analyzer_at(i)->name);
	fprintf(stderr, "\n");
	exit(2);
}

static bool parse_list(const char *what, const char *text, int **v, size_t *nr, char *err,
		       size_t errsz)
{
	if (!text || !pp_parse_list(text, 0, v, nr))
		return true;
	snprintf(err, errsz, "bad %s list '%s': expected numbers and ranges like 0,2-3", what, text);
	return false;
}

/* A positional "help" after an analyzer asks for its events' formats (perf-prof's help). */
static bool take_help(struct pp_az *az)
{
	bool help = false;
	int n = 0;

	for (int i = 0; i < az->nr_args; i++) {
		if (!strcmp(az->args[i], "help"))
			help = true;
		else
			az->args[n++] = az->args[i];
	}
	az->nr_args = n;
	return help;
}

/* Why az_parse() made no instance */
enum az_refusal { AZ_UNKNOWN = 1, AZ_HELP, AZ_OPTION, AZ_OTHER };

static struct pp_az *az_parse(int argc, const char **argv, bool *help, enum az_refusal *why,
			      char *err, size_t errsz)
{
	const struct pp_analyzer *an = argc > 0 ? ana_analyzer_find(argv[0]) : NULL;
	const struct pp_analyzer_ops *ops;
	struct pp_option *common, *tbl;
	struct pp_az *az;
	char e[256];
	int n;

	*help = false;
	if (!an) {
		*why = AZ_UNKNOWN;
		snprintf(err, errsz, "unknown analyzer '%s'", argc > 0 ? argv[0] : "");
		return NULL;
	}
	ops = an->ops;
	az = pp_xcalloc(1, sizeof(*az));
	ana_az_bind(az, an);
	az->priv = pp_xcalloc(1, ops->priv_size ? ops->priv_size : 1);
	az->opts = pp_xcalloc(1, an->plan->opts_size ? an->plan->opts_size : 1);
	az->opt.user_callchain = az->opt.kernel_callchain = true;
	tbl = az_table(az, &common);
	n = pp_parse_options(argc - 1, argv + 1, tbl, 0, e, sizeof(e));
	free(tbl);
	free(common);
	*why = n == PP_OPT_HELP ? AZ_HELP : AZ_OPTION;
	if (n == PP_OPT_HELP)
		snprintf(err, errsz, "%s: -h asks for its help", az->name);
	else if (n < 0)
		snprintf(err, errsz, "%s: %s", az->name, e);
	if (n >= 0 && n != PP_OPT_HELP) {
		*why = AZ_OTHER;
		az->args = argv + 1;
		az->nr_args = n;
		*help = take_help(az);
		if ((ops->flags & PP_AZ_NEED_EVENTS) && !az->opt.events.nr && !*help)
			snprintf(err, errsz, "%s: needs events: -e sys:name[/filter/ATTR/] (see "
				 "'pp-analyze help %s')", az->name, az->name);
		else if ((ops->flags & PP_AZ_NO_EVENTS) && az->opt.events.nr && !ops->set_events)
			snprintf(err, errsz, "%s: does not take -e: it chooses its own events",
				 az->name);
		else if (parse_list("cpu", az->opt.cpus, &az->cpus, &az->nr_cpus, err, errsz) &&
			 parse_list("pid", az->opt.pids, &az->pids, &az->nr_pids, err, errsz) &&
			 parse_list("tid", az->opt.tids, &az->tids, &az->nr_tids, err, errsz))
			return az;
	}
	ana_az_free(az);
	return NULL;
}

struct pp_az *ana_az_try_parse(int argc, const char **argv, bool *help, char *err, size_t errsz)
{
	enum az_refusal why;

	return az_parse(argc, argv, help, &why, err, errsz);
}

struct pp_az *ana_az_parse(int argc, const char **argv, bool *help)
{
	enum az_refusal why;
	char err[512];
	struct pp_az *az = az_parse(argc, argv, help, &why, err, sizeof(err));

	if (az)
		return az;
	switch (why) {
	case AZ_UNKNOWN:
		unknown_analyzer(argv[0]);
	case AZ_HELP:
		ana_analyzer_help(stdout, ana_analyzer_find(argv[0]));
		exit(0);
	case AZ_OPTION:
		pp_err("%s", err);
		fprintf(stderr, "  see 'pp-analyze help %s'\n", argv[0]);
		exit(2);
	default:
		pp_die("%s", err);
	}
}

/* Build one analyzer instance from argv[0..argc) (argv[0] is its name). */
static struct pp_az *az_new(int argc, const char **argv, bool *help)
{
	struct pp_az *az = ana_az_parse(argc, argv, help);
	char err[512];

	/* --state-out: a state in place of the report (analyze/state/) */
	if (az->opt.state_out && !*help && ana_state_az_new(az, err, sizeof(err)))
		pp_die("%s: %s", az->name, err);
	if (ana_out_open(&az->out, az->opt.output, az->opt.format, err, sizeof(err)))
		pp_die("%s: %s", az->name, err);
	return az;
}

void ana_az_free(struct pp_az *az)
{
	az->ops->release(az);
	ana_state_az_free(az);
	ana_perfeval_free(az);
	ana_az_release_sels(az);
	ana_out_close(&az->out);
	pp_strlist_release(&az->opt.events);
	free(az->cpus);
	free(az->pids);
	free(az->tids);
	free(az->priv);
	free(az->opts);
	free(az);
}

/* "+2s" is relative to @base, "12.5" is seconds of capture time, "123ns" absolute. */
static uint64_t parse_when(const char *s, uint64_t base)
{
	uint64_t v;
	bool rel = *s == '+';

	if (rel)
		s++;
	if (!*s)
		return 0;
	if (pp_parse_time(s, 1000000000ull, &v))
		pp_die("bad --time value '%s': use START,END with times like 12.5 or +2s", s);
	return rel ? base + v : v;
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
	const char *comma = strchr(range, ',');
	char *start = pp_xstrndup(range, comma ? (size_t)(comma - range) : strlen(range));
	s->range_start_ns = parse_when(start, first_ns);
	s->range_end_ns = comma ? parse_when(comma + 1, first_ns) : 0;
	free(start);
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

int ana_replay_status(int rc)
{
	if (rc == PP_EUNKNOWN_EVENT || rc == PP_ESYNTAX || rc == PP_EUNKNOWN_FIELD ||
	    rc == PP_ETYPE || rc == PP_EUNKNOWN_ATTR || rc == PP_EUSAGE ||
	    rc == PP_EOFFLINE || rc == PP_ENOTSUP || rc == PP_ERANGE)
		return 2;
	return rc ? 1 : 0;
}

int cmd_analyze(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	int *sl_argc = NULL;
	const char ***sl_argv = NULL;
	struct ppf_read_stats pst;
	const char *path = argv[0];
	const struct ana_cmd *cmd;
	struct ana_session *s;
	struct ppf_record first;
	struct pp_az **azs = NULL;
	size_t nr = 0;
	int rc, status = 0;
	bool help = false;

	const char *info_argv[] = { path, "info", NULL };

	if (argc < 2) {
		argv = info_argv;
		argc = 2;
	}
	cmd = ana_cmd_find(argv[1], ANA_CMD_CAPTURE);
	if (cmd)
		return ana_cmd_run_on(cmd, path, argc - 1, argv + 1, ctx);
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
		azs[nr++] = az_new(j - i, argv + i, &h);
		help |= h;
		i = j + 1;
	}
	if (ana_cmd_open(path, ctx->read_flags, &s)) {
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
		int irc = ana_replay_init(s);
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
	ana_session_free(s);
	return status;
}
