/* SPDX-License-Identifier: MIT */
/*
 * cmd-state.c - `pp-analyze merge A.state B.state... [-o OUT.state]` and
 * `pp-analyze report X.state... [--format F] [-o FILE]`.
 *
 * Both load the states, check that they can be merged (one line on stderr and
 * status 2 when not), rebuild the analyzer instance from the states' own
 * command line on a session made from their context, and read the states into
 * it (analyze/state/); merge then writes the merged state, the `report` command
 * prints the analyzer's result of it, what its finish() prints after a replay.
 * Not here: any of that logic (analyze/state/state.c, merge.c), nor the report
 * analyzer's HTML page (analyze/report/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/err.h"
#include "common/log.h"

static const char *const merge_usage[] = {
	"pp-analyze merge A.state B.state... [-o OUT.state]", NULL,
};
static const char *const report_usage[] = {
	"pp-analyze report X.state... [--format text|json|csv] [-o FILE]", NULL,
};

/* Load @nr states, merge them, and build their analyzer on the merge. Return: exit status. */
static int open_merge(const char **paths, int nr, const char *format, const char *output,
		      struct ana_merge **m_out, struct pp_az **az_out)
{
	struct ana_state **v = pp_xcalloc((size_t)nr, sizeof(*v));
	char err[1024];
	int rc;

	*m_out = NULL;
	*az_out = NULL;
	for (int i = 0; i < nr; i++) {
		rc = ana_state_load(paths[i], &v[i], err, sizeof(err));
		if (rc) {
			pp_err("%s", err);
			for (int k = 0; k < i; k++)
				ana_state_free(v[k]);
			free(v);
			return 2;
		}
	}
	return ana_merge_open(v, (size_t)nr, format, output, m_out, az_out);
}

/* Return: the number of state files, or 0 when done: *@status 0 after -h, else 2 after why. */
static int parse(int argc, const char **argv, const struct pp_option *opts,
		 const char *const *usage, int *status)
{
	char err[256];
	int n = pp_parse_options(argc - 1, argv + 1, opts, 0, err, sizeof(err));

	*status = 0;
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, usage, opts);
		return 0;
	}
	*status = 2;
	if (n < 0)
		pp_err("%s: %s", argv[0], err);
	else if (!n)
		pp_err("%s: no state file given", argv[0]);
	if (n <= 0)
		pp_usage_print(stderr, usage, opts);
	return n < 0 ? 0 : n;
}

int cmd_merge(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	const char *out = "-";
	const struct pp_option opts[] = {
		PP_OPT_STRING('o', "output", &out, "file",
			      "write the merged state to <file> (default: standard output)"),
		PP_OPT_END(),
	};
	struct ana_merge *m;
	struct pp_az *az;
	int rc, n = parse(argc, argv, opts, merge_usage, &rc);

	(void)ctx;
	if (!n)
		return rc;
	/* the merge's instance prints nothing: what its ->init() says goes nowhere */
	rc = open_merge(argv + 1, n, NULL, "/dev/null", &m, &az);

	if (!rc)
		rc = ana_merge_write(m, az, out);
	ana_merge_close(m, az);
	return rc;
}

int cmd_report(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	const char *out = NULL, *format = NULL;
	const struct pp_option opts[] = {
		PP_OPT_STRING(0, "format", &format, "text|json|csv", "output format"),
		PP_OPT_STRING('o', "output", &out, "file", "write the report to <file>"),
		PP_OPT_END(),
	};
	struct ana_merge *m;
	struct pp_az *az;
	int rc, n = parse(argc, argv, opts, report_usage, &rc);

	(void)ctx;
	if (!n)
		return rc;
	rc = open_merge(argv + 1, n, format, out, &m, &az);

	if (!rc)
		rc = ana_merge_report(m, az);
	ana_merge_close(m, az);
	return rc;
}
