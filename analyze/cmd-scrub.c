/* SPDX-License-Identifier: MIT */
/*
 * cmd-scrub.c - `pp-analyze FILE scrub -o OUT [--keep CLASSES] [--salt S] [--map FILE]`:
 * a copy of a capture fit for a public bug report, and the list of what was replaced.
 *
 * Options and the list of what was replaced only; the copy is analyze/scrub.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/share.h"
#include "common/log.h"
#include "common/quote.h"

/* --keep comm,paths,system: the classes to leave alone. */
static int parse_keep(const char *list, struct ana_scrub_opts *o, char *err, size_t errsz)
{
	const char *p = list;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		bool found = false;

		if (n == 6 && !strncmp(p, "system", 6)) {
			o->keep_system_paths = found = true;
		} else if (n == 3 && !strncmp(p, "all", 3)) {
			o->keep = (1u << ANA_SCRUB_NR_CLASSES) - 1;
			found = true;
		}
		for (int c = 0; !found && c < ANA_SCRUB_NR_CLASSES; c++)
			if (strlen(ana_scrub_class_name(c)) == n && !strncmp(p, ana_scrub_class_name(c), n)) {
				o->keep |= 1u << c;
				found = true;
			}
		if (!found) {
			snprintf(err, errsz, "--keep: unknown class '%.*s': comm, cmdline, paths, host, "
				 "strings, filters, system (system paths only) or all", (int)n, p);
			return -EINVAL;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void list_replaced(FILE *fp, struct ana_session *s, const struct ana_scrub_opts *o,
		   const struct ana_scrub_report *rep)
{
	uint64_t total = 0;

	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++)
		total += rep->nr_values[c];
	fprintf(fp, "scrub: '%s' -> '%s': %llu records, %llu values with %llu distinct names "
		"replaced by hashes\n", s->path, o->out_path, (unsigned long long)rep->nr_records,
		(unsigned long long)total, (unsigned long long)rep->nr_tokens);
	for (int c = 0; c < ANA_SCRUB_NR_CLASSES; c++) {
		bool kept = o->keep & (1u << c);

		fprintf(fp, "  %-8s %s", ana_scrub_class_name(c), kept ? "kept (--keep)" : "replaced");
		if (!kept)
			fprintf(fp, " %llu value%s%s%s", (unsigned long long)rep->nr_values[c],
				rep->nr_values[c] == 1 ? "" : "s", *rep->where[c] ? ": " : "",
				rep->where[c]);
		fputc('\n', fp);
	}
	if (o->keep_system_paths && !(o->keep & (1u << ANA_SCRUB_PATHS)))
		fprintf(fp, "  paths under /usr /lib /bin /sbin /etc ... kept (--keep system)\n");
	fprintf(fp, "kept as they are: numbers, options, kernel thread names, pseudo-paths ([vdso], "
		"//anon), JIT map paths, kernel modules, symbol names, build ids, event names and "
		"formats, kernel symbols, times, addresses and the raw data of other fields\n");
	if (*rep->kept_fields)
		fprintf(fp, "kept string fields (kernel text; --all-strings replaces them too): %s\n",
			rep->kept_fields);
	if (*rep->kept_keys)
		fprintf(fp, "kept KV keys (machine and recording facts): %s\n", rep->kept_keys);
	if (o->map)
		fprintf(fp, "the names and their hashes are in the --map file: keep it private\n");
}

static const char scrub_help[] =
	"\nA copy for a public bug report: comm names, command lines, paths, the host\n"
	"name and the user-space string fields of tracepoints are replaced by stable\n"
	"hashes of the same length (the same name, the same hash, within the copy),\n"
	"then what was replaced is listed.  Analyzers run on the copy as on the\n"
	"original.  docs/sharing.md says what a capture holds.\n"
	"\nEXAMPLES\n"
	"  pp-analyze pp.capture scrub -o public.ppcap\n"
	"  pp-analyze pp.capture scrub -o public.ppcap --keep comm,system --map names.txt\n";

int cmd_scrub(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	const char *out = NULL, *keep = NULL, *salt = NULL, *map = NULL;
	bool all_strings = false;
	char err[512];
	const struct pp_option opts[] = {
		PP_OPT_STRING('o', "output", &out, "file", "the scrubbed capture to write (required)"),
		PP_OPT_STRING(0, "keep", &keep, "classes",
			      "leave these as they are: comm,cmdline,paths,host,strings,filters, "
			      "system (paths under /usr /lib /bin ...), all"),
		PP_OPT_BOOL(0, "all-strings", &all_strings,
			    "replace every string field of the tracepoints, kernel text too"),
		PP_OPT_STRING(0, "salt", &salt, "text",
			      "key of the hashes: the same salt gives the same hashes in every "
			      "capture (default: random, a new key each time)"),
		PP_OPT_STRING(0, "map", &map, "file",
			      "write each name and its hash to FILE (mode 0600), to decode a report: "
			      "do not share it"),
		PP_OPT_END(),
	};
	const char *usage[] = { "pp-analyze FILE scrub -o OUT [--keep CLASSES] [--all-strings] "
				"[--salt TEXT] [--map FILE]", NULL };
	struct ana_scrub_opts o = { 0 };
	struct ana_scrub_report rep;
	int n = ana_cmd_parse(argc, argv, opts, usage, scrub_help, err, sizeof(err));
	int rc;

	if (n > 0)
		return 0;	/* its help */
	if (n == 0 && !out)
		snprintf(err, sizeof(err), "-o OUT is required: the scrubbed capture to write");
	else if (n == 0 && !strcmp(out, s->path))
		snprintf(err, sizeof(err), "-o '%s' is the capture being read", out);
	else if (n == 0 && parse_keep(keep, &o, err, sizeof(err)))
		n = -1;
	if (n != 0 || !out || !strcmp(out, s->path)) {
		pp_err("scrub: %s", err);
		return 2;
	}
	o.out_path = out;
	o.salt = salt;
	o.all_strings = all_strings;
	if (map) {
		mode_t old = umask(077);
		o.map = fopen(map, "w");
		umask(old);
		if (!o.map) {
			pp_err("scrub: cannot write '%s': %s", map, strerror(errno));
			return 2;
		}
	}
	rc = ana_scrub(s, &o, &rep, err, sizeof(err));
	if (o.map)
		fclose(o.map);
	if (rc) {
		pp_err("scrub: %s", err);
		ana_scrub_report_release(&rep);
		return 1;
	}
	ana_tell_damage(s, ppf_reader_stats(s->r), "scrub");
	FILE *fp = pp_quote_fopen(stdout);	/* event and key names come from the capture */
	list_replaced(fp ? fp : stdout, s, &o, &rep);
	if (fp)
		fclose(fp);
	ana_scrub_report_release(&rep);
	return 0;
}
