/* SPDX-License-Identifier: MIT */
/*
 * cmd-diff.c - `pp-analyze diff [OPTIONS] BEFORE AFTER [ANALYZER [OPTIONS]]`.
 *
 * Each side, a capture or a state file, is reported by a pp-analyze of its
 * own (this program again, /proc/self/exe) in `--format json`: a capture
 * replayed through ANALYZER and its options, a state through `report`.  The
 * two run at once and their reports are compared by analyze/diff/ (keys,
 * deltas, --fail-if).  A child's error line is its own, on stderr; any
 * failure of a side is exit status 2, a tripped --fail-if 1.
 * Not here: the comparison (analyze/diff/).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/diff/diff.h"
#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/man.h"

static const char *const diff_usage[] = {
	"pp-analyze diff [OPTIONS] BEFORE AFTER ANALYZER [ANALYZER OPTIONS]",
	"pp-analyze diff [OPTIONS] BEFORE.state AFTER.state",
	NULL,
};

static const char diff_help[] =
	"\n"
	"Runs ANALYZER with its options on both sides and prints its report of each side by\n"
	"side, key by key (a syscall, a task and state, a top key ...), with the delta of every\n"
	"number (counts, totals, p50/p95/p99 ...), the keys that changed most first.  A side\n"
	"may be a capture or a state file (--state-out, merge); a state is reported with the\n"
	"options it was made with, and a capture compared with a state is replayed with the\n"
	"state's options when no ANALYZER is given.  Keys are the report's text columns and\n"
	"its key id pid tid thread cpu columns (--match chooses); a key on one side only is\n"
	"'new' or 'gone'.  --fail-if, --match, --sort-by, --columns, --limit and --all-keys may\n"
	"also follow the analyzer's options; --format and -o go before BEFORE.\n"
	"\n"
	"--fail-if EXPR is an expression of the expression language (filters, expr) evaluated\n"
	"for every key: NAME is a number of the after report, before.NAME the same in the\n"
	"before report, delta.NAME their difference, new and gone are 1 for a key on one side\n"
	"only, text keys are strings (syscall == \"read\").  Numbers are doubles: 1.10 * x.\n"
	"Exit status: 0, 1 when --fail-if matched a key (each is named on stderr), 2 when a\n"
	"side cannot be reported or an option or the expression is bad.\n"
	"\n"
	"EXAMPLES\n"
	"  pp-analyze diff old.ppcap new.ppcap syscalls\n"
	"  pp-analyze diff --fail-if 'p99_us > 1.10 * before.p99_us' old.ppcap new.ppcap task-state\n"
	"  pp-analyze diff old.state new.state --format json\n"
	"  pp-analyze diff --match comm,syscall a.ppcap b.ppcap syscalls --perins\n";

static const char state_magic[8] = { 'P', 'P', 'S', 'T', '\r', '\n', 0x1a, '\n' };

/* A side: its path, whether it is a state, the state's command line, its JSON result. */
struct side {
	const char *path;
	bool is_state;
	struct ana_state *st;
	pid_t pid;
	int fd;
	struct pp_buf out;
	struct ana_dreport rep;
};

static bool is_state_file(const char *path)
{
	char m[8];
	FILE *f = fopen(path, "rb");
	bool yes = f && fread(m, 1, sizeof(m), f) == sizeof(m) && !memcmp(m, state_magic, sizeof(m));

	if (f)
		fclose(f);
	return yes;
}

/* The child's command line: this program, then @args. Return: a pid, or -1 after saying why. */
static pid_t spawn(const char *const *args, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p)) {
		pp_err("diff: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pp_err("diff: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv("/proc/self/exe", (char *const *)args);
		fprintf(stderr, "pp-analyze: error: diff: cannot run /proc/self/exe: %s\n",
			strerror(errno));
		_exit(2);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

/* Both children's output until both end. Return: 0, or 2 when one failed. */
static int collect(struct side *sd)
{
	struct pollfd pf[2] = { { sd[0].fd, POLLIN, 0 }, { sd[1].fd, POLLIN, 0 } };
	int open = 2, rc = 0;
	char buf[65536];

	while (open) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			ssize_t n = read(pf[i].fd, buf, sizeof(buf));

			if (n > 0) {
				pp_buf_add(&sd[i].out, buf, (size_t)n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			close(pf[i].fd);
			pf[i].fd = -1;
			open--;
		}
	}
	for (int i = 0; i < 2; i++) {
		int status;

		while (waitpid(sd[i].pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			pp_err("diff: '%s' could not be reported (%s %d)", sd[i].path,
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			rc = 2;
		}
	}
	return rc;
}

/* The arguments of a side's child. Return: NULL-terminated, the strings borrowed. */
static const char **side_args(const struct side *sd, const char *const *az, int nr_az)
{
	const char **v = pp_xcalloc((size_t)nr_az + 12, sizeof(*v));
	int n = 0, dd;

	v[n++] = "pp-analyze";
	v[n++] = "-q";
	if (sd->is_state) {
		v[n++] = "report";
		v[n++] = sd->path;
		v[n++] = "--format";
		v[n++] = "json";
		return v;
	}
	v[n++] = sd->path;
	/* the analyzer's options, then ours (the last wins), before a "--" */
	for (dd = 0; dd < nr_az && strcmp(az[dd], "--"); dd++)
		v[n++] = az[dd];
	v[n++] = "--format";
	v[n++] = "json";
	v[n++] = "-o";
	v[n++] = "-";
	for (; dd < nr_az; dd++)
		v[n++] = az[dd];
	return v;
}

/*
 * The analyzer both sides are reported with: the one given, or a state's.
 * Return: 0, or 2 after saying why (no analyzer, two different ones).
 */
static int pick_analyzer(struct side *sd, const char *const **az, int *nr_az)
{
	const char *name = *nr_az ? (*az)[0] : NULL;

	for (int i = 0; i < 2; i++) {
		int argc;
		const char *const *argv;

		if (!sd[i].is_state)
			continue;
		argv = ana_state_argv(sd[i].st, &argc);
		if (name && strcmp(name, argv[0])) {
			pp_err("diff: '%s' is a state of %s, not %s", sd[i].path, argv[0], name);
			return 2;
		}
		if (!*nr_az) {
			*az = argv;
			*nr_az = argc;
			name = argv[0];
		}
	}
	if (!name) {
		pp_err("diff: which analyzer? pp-analyze diff BEFORE AFTER ANALYZER [OPTIONS]"
		       " (only two states need none)");
		return 2;
	}
	if (!ana_analyzer_find(name)) {
		pp_err("diff: unknown analyzer '%s' ('pp-analyze help' lists them)", name);
		return 2;
	}
	return 0;
}

/* --fail-if and the other options no analyzer has, taken from the analyzer's options. */
static int take_late(const char **argv, int argc, const char **fail_if, const char **match,
		     const char **sort, const char **columns, const char **limit, bool *all)
{
	static const char *const names[] = { "--fail-if", "--match", "--sort-by", "--columns",
					     "--limit", "--all-keys" };
	const char **dst[] = { fail_if, match, sort, columns, limit, NULL };
	int n = 0;

	for (int i = 0; i < argc; i++) {
		size_t k, l = 0;

		for (k = 0; k < PP_ARRAY_SIZE(names); k++) {
			l = strlen(names[k]);
			if (!strncmp(argv[i], names[k], l) && (!argv[i][l] || argv[i][l] == '='))
				break;
		}
		if (k == PP_ARRAY_SIZE(names) || !strcmp(argv[i], "--")) {
			argv[n++] = argv[i];
			continue;
		}
		if (!dst[k]) {
			*all = true;
		} else if (argv[i][l] == '=') {
			*dst[k] = argv[i] + l + 1;
		} else if (i + 1 < argc) {
			*dst[k] = argv[++i];
		} else {
			pp_err("diff: %s needs a value", names[k]);
			exit(2);
		}
	}
	return n;
}

static void usage_exit(const struct pp_option *opts, const char *msg)
{
	pp_err("diff: %s", msg);
	pp_usage_print(stderr, diff_usage, opts);
	exit(2);
}

static int compare(struct side *sd, const char *analyzer, const struct ana_diff_opts *o,
		   const char *fail_if, struct ana_diff_head *h, enum ana_diff_format f,
		   const char *output)
{
	struct ana_diff d;
	char err[512];
	FILE *fp = stdout;
	int rc;

	for (int i = 0; i < 2; i++)
		if (ana_dreport_parse(&sd[i].rep, sd[i].out.data ? sd[i].out.data : "",
				      sd[i].out.len, analyzer, err, sizeof(err))) {
			pp_err("diff: the JSON report of '%s': %s", sd[i].path, err);
			return 2;
		}
	if (!sd[0].rep.nr && !sd[1].rep.nr) {
		pp_err("diff: %s printed no table to compare (its --format json report has none)",
		       analyzer);
		return 2;
	}
	if (ana_diff_compute(&d, &sd[0].rep, &sd[1].rep, o, err, sizeof(err))) {
		pp_err("diff: %s", err);
		return 2;
	}
	if (fail_if && ana_diff_gate(&d, fail_if)) {
		ana_diff_release(&d);
		return 2;
	}
	if (output && strcmp(output, "-") && !(fp = fopen(output, "w"))) {
		pp_err("diff: cannot write '%s': %s", output, strerror(errno));
		ana_diff_release(&d);
		return 2;
	}
	ana_diff_print(&d, h, f, fp);
	if (fp != stdout)
		fclose(fp);
	else
		fflush(stdout);
	ana_diff_tripped_print(&d, stderr);
	rc = fail_if && d.nr_tripped ? 1 : 0;
	ana_diff_release(&d);
	return rc;
}

int cmd_diff(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	const char *format = NULL, *output = NULL, *fail_if = NULL, *limit = NULL;
	struct ana_diff_opts o = { 0 };
	bool all = false;
	const struct pp_option opts[] = {
		PP_OPT_STRING(0, "fail-if", &fail_if, "expr",
			      "exit 1 when a key matches <expr> (before.NAME: the before side)"),
		PP_OPT_STRING(0, "match", &o.keys, "cols",
			      "match keys by these columns (default: text and id columns)"),
		PP_OPT_STRING(0, "sort-by", &o.sort, "col",
			      "sort by |delta| of <col> (default: the largest relative change)"),
		PP_OPT_STRING(0, "columns", &o.columns, "cols", "compare only these value columns"),
		PP_OPT_STRING(0, "limit", &limit, "n", "text: at most <n> keys a table"),
		PP_OPT_BOOL(0, "all-keys", &all, "text: the keys that did not change too"),
		PP_OPT_STRING(0, "format", &format, "text|json|csv", "output format"),
		PP_OPT_STRING('o', "output", &output, "file", "write the comparison to <file>"),
		PP_OPT_END(),
	};
	struct side sd[2] = { 0 };
	enum ana_diff_format f = ANA_DIFF_TEXT;
	const char *const *az;
	const char **args[2];
	char err[512];
	int n, nr_az, rc;

	if (pp_help_man(stdout, argc - 1, argv + 1, diff_usage, opts, diff_help + 1))
		return 0;
	n = pp_parse_options(argc - 1, argv + 1, opts, PP_PARSE_STOP_AT_NON_OPTION, err,
			     sizeof(err));
	if (n == PP_OPT_HELP) {
		pp_usage_print(stdout, diff_usage, opts);
		fputs(diff_help, stdout);
		return 0;
	}
	if (n < 0)
		usage_exit(opts, err);
	argv++;
	n = take_late(argv, n, &fail_if, &o.keys, &o.sort, &o.columns, &limit, &all);
	if (n < 2)
		usage_exit(opts, "two reports to compare: BEFORE AFTER");
	if (n > 2 && argv[2][0] == '-') {	/* no analyzer (two states): more of our options */
		int m = pp_parse_options(n - 2, argv + 2, opts, 0, err, sizeof(err));

		if (m < 0 || m == PP_OPT_HELP)
			usage_exit(opts, m < 0 ? err : "--help goes first: pp-analyze diff --help");
		if (m)
			usage_exit(opts, "the analyzer goes before its options: BEFORE AFTER ANALYZER"
				   " [OPTIONS]");
		n = 2;
	}
	if (format && !strcmp(format, "json"))
		f = ANA_DIFF_JSON;
	else if (format && !strcmp(format, "csv"))
		f = ANA_DIFF_CSV;
	else if (format && strcmp(format, "text"))
		usage_exit(opts, "--format: text, json or csv");
	char *end = NULL;
	unsigned long lim = limit ? strtoul(limit, &end, 10) : 0;

	if (limit && (!*limit || *end || *limit == '-'))
		usage_exit(opts, "--limit: a number of keys");
	for (int i = 0; i < 2; i++) {
		sd[i].path = argv[i];
		if (!strcmp(argv[i], "-"))
			usage_exit(opts, "each side is a file ('-' cannot be both)");
		if (access(argv[i], R_OK)) {
			pp_err("diff: cannot read '%s': %s", argv[i], strerror(errno));
			return 2;
		}
		sd[i].is_state = is_state_file(argv[i]);
		if (sd[i].is_state && ana_state_load(argv[i], &sd[i].st, err, sizeof(err))) {
			pp_err("diff: %s", err);
			rc = 2;
			goto out;
		}
	}
	az = argv + 2;
	nr_az = n - 2;
	rc = pick_analyzer(sd, &az, &nr_az);
	if (rc)
		goto out;
	if (!sd[0].is_state || !sd[1].is_state) {
		/* bad options: said once here (exit 2), not by both sides */
		bool help = false;

		ana_az_free(ana_az_parse(nr_az, (const char **)az, ctx->cmds, &help));
	}
	for (int i = 0; i < 2; i++) {
		args[i] = side_args(&sd[i], az, nr_az);
		sd[i].pid = spawn(args[i], &sd[i].fd);
		free(args[i]);
		if (sd[i].pid < 0) {
			if (i) {
				kill(sd[0].pid, SIGTERM);
				close(sd[0].fd);
				waitpid(sd[0].pid, NULL, 0);
			}
			rc = 2;
			goto out;
		}
	}
	rc = collect(sd);
	if (!rc) {
		struct ana_diff_head h = { .analyzer = az[0], .before = sd[0].path,
					   .after = sd[1].path, .fail_if = fail_if,
					   .limit = (size_t)lim, .all = all };

		rc = compare(sd, az[0], &o, fail_if, &h, f, output);
	}
out:
	for (int i = 0; i < 2; i++) {
		ana_dreport_release(&sd[i].rep);
		pp_buf_release(&sd[i].out);
		if (sd[i].st)
			ana_state_free(sd[i].st);
	}
	return rc;
}
