/* SPDX-License-Identifier: MIT */
/*
 * export.c - write a capture (or a time range, CPUs, tasks and events of it) in other
 * tools' formats: Chrome trace JSON and Perfetto protobuf timelines, pprof profiles,
 * JSON lines and CSV tables, folded flame-graph stacks.
 *
 * This analyzer only picks the format and forwards events: the writers are core
 * services (analyze/export-*.c), so other analyzers can export too.  pprof and folded
 * without -e take the event types recorded with call stacks (all when none is).
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/export/export.h"
#include "analyzers/export.h"
#include "common/dwinline.h"
#include "common/err.h"
#include "common/log.h"

struct export_priv {
	struct ana_export *x;
};

static int export_init(struct pp_az *az)
{
	struct export_priv *p = az->priv;
	const struct export_opts *o = az->opts;
	const char *to = o->to;
	struct ana_export_cfg cfg = { 0 };
	int rc;

	/* --format json|csv, which every analyzer takes, means the table formats here */
	if (!to && az->opt.format && !strcmp(az->opt.format, "json"))
		to = "jsonl";
	else if (!to && az->opt.format && !strcmp(az->opt.format, "csv"))
		to = "csv";
	cfg = (struct ana_export_cfg){
		.format = to,
		.value = o->value,
		.stacks = o->stacks || az->opt.callchain,
		.only_stacked = !az->opt.events.nr,
	};
	if (!to) {
		pp_err("export: --to FORMAT is required: "
		       "chrome, perfetto, pprof, jsonl, csv or folded");
		return PP_EUSAGE;
	}
	if (!strcmp(to, "folded") && !o->no_inline)
		az->inl = ana_session_inl(az->s, o->debug_dir);	/* the same stacks as profile's */
	ana_session_debug_syms(az->s, o->debug_dir, o->debuginfod);
	rc = ana_export_new(az, &cfg, &p->x);
	if (rc)
		pp_err("export: %s", ana_export_errmsg(p->x));
	return rc;
}

static void export_event(struct pp_az *az, const struct pp_event *ev)
{
	struct export_priv *p = az->priv;

	ana_export_event(p->x, ev);
}

static void export_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct export_priv *p = az->priv;

	if (p->x)
		ana_export_task_exit(p->x, pid, tid, time_ns);
}

static int export_finish(struct pp_az *az)
{
	struct export_priv *p = az->priv;
	int rc;

	if (!p->x)
		return 0;
	rc = ana_export_finish(p->x);
	if (rc) {
		pp_err("export: %s", ana_export_errmsg(p->x));
		return 1;
	}
	if (az->opt.verbose)
		pp_info("export: %llu events written",
			(unsigned long long)ana_export_nr_events(p->x));
	return 0;
}

static void export_release(struct pp_az *az)
{
	struct export_priv *p = az->priv;

	ana_export_free(p->x);
	p->x = NULL;
	az->inl = NULL;	/* the session's */
}


static const char *export_inline_dir(const struct pp_az *az)
{
	const struct export_opts *o = az->opts;

	if (!o->to || strcmp(o->to, "folded") || o->no_inline)
		return NULL;
	return o->debug_dir ? o->debug_dir : "";
}

const struct pp_analyzer_ops az_export_ops = {
	.summary = "events as Chrome/Perfetto traces, pprof, JSON lines, CSV or folded stacks",
	.usage = "pp-analyze FILE export --to FORMAT [-o OUT] [-e EVENTS] [--time START,END] "
		 "[-C/-p/-t LIST]",
	.examples =
		"  pp-analyze pp.capture export --to chrome -o trace.json  # ui.perfetto.dev\n"
		"  pp-analyze pp.capture export --to perfetto -o trace.pftrace\n"
		"  pp-analyze pp.capture export --to pprof -o cpu.pb.gz     # go tool pprof\n"
		"  pp-analyze pp.capture export --to csv -e sched:sched_wakeup -o wakeups.csv\n"
		"  pp-analyze pp.capture export --to jsonl --stacks --time +1s,+2s\n"
		"  pp-analyze pp.capture export --to folded | flamegraph.pl > cpu.svg\n",
	.inline_dir = export_inline_dir,
	.priv_size = sizeof(struct export_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = export_init,
	.event = export_event,
	.task_exit = export_task_exit,
	.finish = export_finish,
	.release = export_release,
};
