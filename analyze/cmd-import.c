/* SPDX-License-Identifier: MIT */
/*
 * cmd-import.c - `pp-analyze FILE import -o OUT`: a perf.data or trace.dat written out
 * as a pp capture, for the commands that want a capture file (scrub, slice, -j N,
 * fleet, diff) or to read it again without converting it each time.
 *
 * The session has already converted the file (analyze/import/) when the command runs:
 * its records are copied into OUT as they are read.  Not here: the conversion.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"

static const char import_help[] =
	"\nConverts another tool's file - a perf.data of 'perf record' (file or pipe mode,\n"
	"-z compressed too) or a trace.dat of 'trace-cmd record' - into a pp capture.  Any\n"
	"command runs on such a file directly (it is converted on the fly each time); a\n"
	"capture written once is faster to read again, and scrub, slice, -j N, fleet and diff\n"
	"take it as they take any capture.  What the file was and what it lacked is said on\n"
	"stderr, and 'pp-analyze OUT info' shows it.  docs/foreign-files.md says what is\n"
	"carried over.\n"
	"\nEXAMPLES\n"
	"  pp-analyze perf.data import -o perf.ppcap\n"
	"  perf record -o - -e sched:sched_switch -a sleep 5 | pp-analyze - import -o sw.ppcap\n";

/* Every record of the session's capture into @w. Return: 0, 1 on a read error, 2 on a write error. */
static int copy_all(struct ana_session *s, struct ppf_writer *w, uint64_t *nr)
{
	struct ppf_record rec;
	int rc;

	while ((rc = ppf_reader_next(s->r, &rec, NULL)) == 0) {
		if (ppf_write_record(w, &rec)) {
			pp_err("import: writing: %s", ppf_writer_errmsg(w));
			return 2;
		}
		(*nr)++;
	}
	if (rc < 0) {
		pp_err("import: reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
		return 1;
	}
	return 0;
}

int cmd_import(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	const char *out = NULL;
	char err[512];
	const struct pp_option opts[] = {
		PP_OPT_STRING('o', "output", &out, "file", "the capture to write (required)"),
		PP_OPT_END(),
	};
	const char *usage[] = { "pp-analyze FILE import -o OUT", NULL };
	struct ppf_writer *w = NULL;
	uint64_t nr = 0;
	int n = ana_cmd_parse(argc, argv, opts, usage, import_help, err, sizeof(err));
	int rc;

	if (n > 0)
		return 0;	/* its help */
	const char *why = n ? err : !out ? "-o OUT is required: the capture to write" :
			  !strcmp(out, s->path) ? "-o names the file being read" : NULL;
	if (why) {
		pp_err("import: %s", why);
		return 2;
	}
	if (!s->imported)
		pp_warn("import: '%s' is already a pp capture: copied as it is", s->path);
	if (ppf_writer_open(out, NULL, &w)) {
		pp_err("import: cannot write '%s': %s", out, w ? ppf_writer_errmsg(w) : "no memory");
		rc = ppf_writer_close(w);	/* the open's error is the one said */
		return 2;
	}
	rc = copy_all(s, w, &nr);
	if (ppf_writer_close(w) && !rc) {
		pp_err("import: cannot write '%s'", out);
		rc = 2;
	}
	if (!rc)
		pp_info("import: '%s' -> '%s': %llu records", s->path, out, (unsigned long long)nr);
	return rc;
}
