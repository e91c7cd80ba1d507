/* SPDX-License-Identifier: MIT */
/*
 * fleet.c - `pp fleet ANALYZER [OPTIONS] CAPTURE...`: the analyzer's state of
 * each capture made on a Dask cluster's workers, merged there, the merge's
 * report printed (docs/fleet.md).
 *
 * Dask is Python, so the work is Python's: pp.fleet (analyze/python/fleet.py,
 * compiled into pp as text) run by the system's python3 with `-c`.  Its tasks
 * then travel to the workers by value, and a worker needs pp-analyze and
 * Python's standard library, not the pp module.  Here: the help (also for
 * pp(1)), which python3 (PP_PYTHON, else Debian's /usr/bin/python3, whose
 * python3-distributed make deps installs, else PATH's), and the pp-analyze
 * beside pp, handed over as PP_ANALYZE unless one is set (PP_ENV_ANALYZE,
 * common/front-env.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/fleet.h"
#include "common/front-env.h"
#include "common/log.h"
#include "common/man.h"
#include "common/options.h"
#include "gen/fleet-py.h"

static const char *const fleet_usage[] = {
	"pp fleet ANALYZER [ANALYZER OPTIONS] [FLEET OPTIONS] CAPTURE...",
	"pp fleet ANALYZER [OPTIONS] -- CAPTURE...",
	NULL,
};

static const char fleet_help[] =
	"Runs `pp-analyze CAPTURE ANALYZER OPTIONS --state-out` for every capture on the\n"
	"workers of a Dask cluster, merges the states there in a tree (`pp-analyze merge`)\n"
	"and prints the merge's report (`pp-analyze report`): the report of all captures\n"
	"together.  ANALYZER is one with a mergeable state (docs/state-format.md).\n"
	"\n"
	"CAPTURE... are the words after --, else the trailing words that name files or end\n"
	"in .ppcap.  Without --ship the workers read each capture at its absolute path\n"
	"(a file system they share); with --ship pp reads them and sends the bytes.\n"
	"Without --scheduler pp starts a local cluster of --workers workers (default: one\n"
	"per CPU, at most one per capture).  The workers run the pp-analyze at this pp's\n"
	"path when they have it, else their PATH's.\n"
	"\n"
	"A task that Dask runs again after its worker died makes the same state; each\n"
	"capture's state is used once, and a merge refuses two states holding time of\n"
	"the same capture (a capture given twice).  With --perins the rows of each host\n"
	"stay apart (the states of a host are merged on their own, the rows labelled with\n"
	"the host); without it the totals add up over all captures.\n"
	"\n"
	"Examples:\n"
	"  pp fleet task-state web*.ppcap\n"
	"  pp fleet syscalls --perins --per-capture -- /nfs/caps/*.ppcap\n"
	"  pp fleet top -e sched:sched_switch --scheduler tcp://10.0.0.5:8786 --ship *.ppcap\n"
	"  pp fleet task-state --state-out all.state *.ppcap; pp-analyze report all.state\n";

static const char *opt_str;
static int opt_int;
static bool opt_flag;
static const struct pp_option fleet_opts[] = {
	PP_OPT_STRING(0, "scheduler", &opt_str, "tcp://HOST:PORT",
		      "a running Dask scheduler (default: a local cluster)"),
	PP_OPT_INT(0, "workers", &opt_int, "n", "the local cluster's workers"),
	PP_OPT_BOOL(0, "ship", &opt_flag, "send the captures' bytes, not their paths"),
	PP_OPT_BOOL(0, "per-capture", &opt_flag,
		    "each capture's rows too, labelled with capture and host"),
	PP_OPT_BOOL(0, "by-host", &opt_flag,
		    "rows per host, labelled (--no-by-host: all added; default: with --perins)"),
	PP_OPT_STRING(0, "format", &opt_str, "text|json|csv", "output format"),
	PP_OPT_STRING('o', "output", &opt_str, "file", "write the report to <file>"),
	PP_OPT_STRING(0, "state-out", &opt_str, "file", "write the merged state to <file> too"),
	PP_OPT_STRING(0, "pp-analyze", &opt_str, "path", "the workers' pp-analyze"),
	PP_OPT_INT(0, "fan-in", &opt_int, "n", "states a merge takes (default 8)"),
	PP_OPT_END(),
};

static const char *python(void)
{
	const char *p = getenv("PP_PYTHON");

	if (p && *p)
		return p;
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

int front_fleet_main(int argc, const char **argv, const char *bindir)
{
	char exe[PATH_MAX + 16];
	const char **v;

	if (pp_help_man(stdout, argc, argv, fleet_usage, fleet_opts, fleet_help))
		return 0;
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			pp_usage_print(stdout, fleet_usage, fleet_opts);
			printf("\n%s", fleet_help);
			return 0;
		}
	if (!argc) {
		pp_usage_print(stderr, fleet_usage, fleet_opts);
		return 2;
	}
	snprintf(exe, sizeof(exe), "%s/pp-analyze", bindir);
	if (bindir[0] && access(exe, X_OK) == 0)
		setenv(PP_ENV_ANALYZE, exe, 0);
	v = pp_xcalloc((size_t)argc + 4, sizeof(*v));	/* python3 -c FLEET_PY, the words, NULL */
	v[0] = python();
	v[1] = "-c";
	v[2] = FLEET_PY;
	for (int i = 0; i < argc; i++)
		v[i + 3] = argv[i];
	execvp(v[0], (char **)v);
	pp_err("cannot run %s: %s (pp fleet runs in python3 with Dask: make deps)", v[0],
	       strerror(errno));
	return 2;
}
