/* SPDX-License-Identifier: MIT */
/*
 * cmd-slice.c - `pp-analyze FILE slice [--time A,B] [--pid P,...] [-e EVENTS] -o OUT`:
 * a smaller self-contained capture for a bug report or a regression fixture.
 *
 * Options and the one-line summary only; the copy is analyze/slice.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/share.h"
#include "common/log.h"
#include "common/units.h"

/* -e a,b -e c: every name or glob, split at commas (copies in @out); a /filter/ is refused. */
static int split_events(const struct pp_strlist *in, struct pp_strlist *out, char *err, size_t errsz)
{
	for (size_t i = 0; i < in->nr; i++) {
		const char *p = in->v[i];

		while (*p) {
			const char *e = strchr(p, ',');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			char *name = pp_xstrndup(p, n);

			if (strchr(name, '/')) {
				snprintf(err, errsz, "-e '%s': a slice keeps whole events; give filters "
					 "and attributes to the analyzers that read it", name);
				free(name);
				return -1;
			}
			if (n)
				pp_strlist_push(out, name);	/* @out owns it: freed by the caller */
			else
				free(name);
			p += n + (e != NULL);
		}
	}
	return 0;
}

static const char slice_help[] =
	"\nA smaller capture that stands on its own: the metadata, the task history, the\n"
	"time syncs, and of the range, the processes and the events given, the samples,\n"
	"losses and side-band records, with the mmaps and user symbols of the kept\n"
	"processes and the kernel symbols their samples need (--all-ksyms: every one).\n"
	"Analyzers on the slice given the same --time, -p and -e report what they report\n"
	"on the original.\n"
	"\nEXAMPLES\n"
	"  pp-analyze pp.capture slice --time +2s,+3s -o bug.ppcap\n"
	"  pp-analyze pp.capture slice --pid 1234 -e 'sched:*,raw_syscalls:*' -o fixture.ppcap\n";

int cmd_slice(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	const char *out = NULL, *time = NULL, *pids = NULL;
	struct pp_strlist ev_opt = { 0 }, events = { 0 };
	bool all_ksyms = false;
	char err[512];
	const struct pp_option opts[] = {
		PP_OPT_STRING('o', "output", &out, "file", "the slice to write (required)"),
		PP_OPT_STRING(0, "time", &time, "start,end",
			      "keep this time range, as analyzers take --time: 12.5,13 or +2s,+3s"),
		PP_OPT_STRING(0, "pid", &pids, "pids", "keep these processes (and the events that name them)"),
		PP_OPT_STRLIST('e', "event", &ev_opt, "events", "keep these events: names or globs (sched:*)"),
		PP_OPT_BOOL(0, "all-ksyms", &all_ksyms,
			    "keep every kernel symbol, not only those the kept samples need"),
		PP_OPT_END(),
	};
	const char *usage[] = { "pp-analyze FILE slice [--time A,B] [--pid P,...] [-e EVENTS] "
				"[--all-ksyms] -o OUT", NULL };
	struct ana_slice_opts o = { 0 };
	struct ana_slice_report rep;
	int n = ana_cmd_parse(argc, argv, opts, usage, slice_help, err, sizeof(err));
	int rc, status = 2;

	if (n > 0)
		return 0;	/* its help */
	if (n == 0 && !out)
		snprintf(err, sizeof(err), "-o OUT is required: the slice to write");
	else if (n == 0 && !strcmp(out, s->path))
		snprintf(err, sizeof(err), "-o '%s' is the capture being read", out);
	else if (n == 0 && pids && pp_parse_list(pids, 0, &o.pids, &o.nr_pids))
		snprintf(err, sizeof(err), "bad --pid list '%s': expected numbers and ranges like 1,5-7",
			 pids), n = -1;
	else if (n == 0 && split_events(&ev_opt, &events, err, sizeof(err)))
		n = -1;
	if (n != 0 || !out || !strcmp(out, s->path)) {
		pp_err("slice: %s", err);
		goto out;
	}
	o.out_path = out;
	o.time = time;
	o.all_ksyms = all_ksyms;
	o.events = events.v;
	o.nr_events = events.nr;
	rc = ana_slice(s, &o, &rep, err, sizeof(err));
	if (rc) {
		pp_err("slice: %s", err);
		status = rc == PP_EUSAGE ? 2 : 1;
		goto out;
	}
	ana_tell_damage(s, ppf_reader_stats(s->r), "slice");
	char a[64], b[64];
	printf("slice: '%s' -> '%s': %llu of %llu samples, %llu of %llu records, %llu of %llu "
	       "binaries, %llu of %llu kernel symbols, %s",
	       s->path, out, (unsigned long long)rep.nr_samples_out,
	       (unsigned long long)rep.nr_samples_in, (unsigned long long)rep.nr_out,
	       (unsigned long long)rep.nr_in, (unsigned long long)rep.nr_dsos_out,
	       (unsigned long long)rep.nr_dsos_in, (unsigned long long)rep.nr_ksyms_out,
	       (unsigned long long)rep.nr_ksyms_in, pp_format_bytes(rep.bytes_out, a, sizeof(a)));
	if (rep.start_ns || rep.end_ns)
		printf(", time %s..%s", rep.start_ns ? ana_ts_str(rep.start_ns, a, sizeof(a)) : "",
		       rep.end_ns ? ana_ts_str(rep.end_ns, b, sizeof(b)) : "");
	putchar('\n');
	status = 0;
out:
	for (size_t i = 0; i < events.nr; i++)
		free((char *)events.v[i]);
	pp_strlist_release(&ev_opt);
	pp_strlist_release(&events);
	free(o.pids);
	return status;
}
