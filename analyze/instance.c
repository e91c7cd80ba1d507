/* SPDX-License-Identifier: MIT */
/*
 * instance.c - an analyzer instance's life: from a command line to an instance, its
 * help, and its end.
 *
 * An instance is an analyzer of the registry bound to its hooks (hooks.c), its
 * options parsed from argv[0..argc) (argv[0] the analyzer's name, then its own
 * option table followed by the common one), and the lists (-C, -p, -t) they name.
 * ana_az_parse() is the command line's (pp-analyze exits with status 2 on bad
 * options, 0 after -h, as any command does); ana_az_try_parse() is for arguments
 * that came from a file (a state's), which it refuses with a message and no exit.
 * ana_az_free() releases all an instance holds, whoever made it: the replay's, a
 * part's of -j N, a merge's.  Not here: its output and --state-out, opened by the
 * command that runs it (cmd-analyze.c), or its replay (replay.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/log.h"
#include "common/units.h"

static struct pp_option *az_options(struct pp_az *az, struct pp_option **common)
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

int ana_az_start(struct pp_az *az, const struct pp_analyzer *an, int argc, const char **argv,
		 char *err, size_t errsz)
{
	struct pp_option *common, *tbl;
	int n;

	ana_az_bind(az, an);
	az->priv = pp_xcalloc(1, an->ops->priv_size ? an->ops->priv_size : 1);
	az->opts = pp_xcalloc(1, an->plan->opts_size ? an->plan->opts_size : 1);
	az->opt.user_callchain = az->opt.kernel_callchain = true;
	tbl = az_options(az, &common);
	n = pp_parse_options(argc - 1, argv + 1, tbl, 0, err, errsz);
	free(tbl);
	free(common);
	return n;
}

void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an)
{
	struct pp_az az = { 0 };
	struct pp_option *common, *tbl;
	const char *usage[] = { an->ops->usage, NULL };

	ana_az_bind(&az, an);
	az.opts = pp_xcalloc(1, an->plan->opts_size ? an->plan->opts_size : 1);
	tbl = az_options(&az, &common);
	fprintf(fp, "%s - %s\n\n", an->name, an->ops->summary);
	pp_usage_print(fp, usage, tbl);
	if (an->ops->examples)
		fprintf(fp, "\nEXAMPLES\n%s", an->ops->examples);
	free(tbl);
	free(common);
	free(az.opts);
}

static PP_NORETURN void unknown_analyzer(const char *name, const struct ana_cmd *cmds)
{
	if (!strcmp(name, "help")) {
		pp_err("'help' goes after an analyzer and its events: pp-analyze FILE ANALYZER -e EVENTS help"
		       " ('pp-analyze help' lists the analyzers)");
		exit(2);
	}
	pp_err("unknown analyzer or command '%s'", name);
	fprintf(stderr, "  available:");
	for (const struct ana_cmd *c = cmds; c && c->run; c++)
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
	n = ana_az_start(az, an, argc, argv, e, sizeof(e));
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

struct pp_az *ana_az_parse(int argc, const char **argv, const struct ana_cmd *cmds,
			   bool *help)
{
	enum az_refusal why;
	char err[512];
	struct pp_az *az = az_parse(argc, argv, help, &why, err, sizeof(err));

	if (az)
		return az;
	switch (why) {
	case AZ_UNKNOWN:
		unknown_analyzer(argv[0], cmds);
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

