/* SPDX-License-Identifier: MIT */
/*
 * plan.c - the common analyzer options and building a recording plan.
 *
 * The common table is declared once here and included by every analyzer's
 * table, on the record side (pp-record --for, pp) and the analysis side
 * alike, so both parse exactly the same command lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "plan.h"

#define C(f) PP_AZOPT(struct pp_common_opts, f)

const struct pp_option pp_common_options[] = {
	PP_OPT_GROUP("Common options:"),
	PP_OPT_STRLIST('e', "event", C(events), "EVENT,...", "event selector sys:name/filter/ATTR/ (repeat for positions)"),
	PP_OPT_TIME('i', "interval", C(interval_ns), 1000000, "report every <ms> of capture time"),
	PP_OPT_STRING(0, "time", C(time_range), "start,end", "analyse only this range: 12.5,14 (seconds) or +2s,+5s from the start"),
	PP_OPT_STRING('C', "cpus", C(cpus), "list", "only events of these CPUs"),
	PP_OPT_STRING('p', "pids", C(pids), "list", "only events of these processes"),
	PP_OPT_STRING('t', "tids", C(tids), "list", "only events of these threads"),
	PP_OPT_BOOL(0, "perins", C(perins), "report per instance (CPU or thread)"),
	PP_OPT_TIME(0, "than", C(than_ns), 1, "report only what is above this (s/ms/us/ns)"),
	PP_OPT_TIME(0, "only-than", C(only_than_ns), 1, "print interval tables only when something went over"),
	PP_OPT_TIME(0, "lower", C(lower_ns), 1, "report what is below this"),
	PP_OPT_BOOL('g', "call-graph", C(callchain), "record / print call stacks"),
	PP_OPT_BOOL(0, "order", C(order), "accepted for perf-prof compatibility: captures are ordered"),
	PP_OPT_STRING('k', "key", C(key), "EXPR", "default key expression"),
	PP_OPT_STRING(0, "filter", C(filter), "filter", "analyzer-specific filter"),
	PP_OPT_STRING_OPTARG(0, "detail", C(detail), "how", "", "more detail (analyzer-specific)"),
	PP_OPT_STRING(0, "flame-graph", C(flame_graph), "file", "write folded stacks to <file> (.svg: an SVG)"),
	PP_OPT_STRING(0, "heatmap", C(heatmap), "file", "write latency heatmap data"),
	PP_OPT_U64('N', "exit-N", C(exit_n), "N", "stop after N events"),
	PP_OPT_STRING(0, "format", C(format), "text|json|csv", "output format"),
	PP_OPT_STRING('o', "output", C(output), "file", "write the report to <file>"),
	PP_OPT_COUNT('v', "verbose", C(verbose), "more output"),
	PP_OPT_GROUP("Recording options (used by pp-record --for and pp):"),
	PP_OPT_U64('F', "freq", C(freq), "hz", "sampling frequency of clock events"),
	PP_OPT_TIME(0, "period", C(period_ns), 1, "sampling period"),
	PP_OPT_BOOL(0, "exclude-user", C(exclude_user), "do not sample user space"),
	PP_OPT_BOOL(0, "exclude-kernel", C(exclude_kernel), "do not sample the kernel"),
	PP_OPT_BOOL(0, "user-callchain", C(user_callchain), "keep user frames of stacks (--no- to drop)"),
	PP_OPT_BOOL(0, "kernel-callchain", C(kernel_callchain), "keep kernel frames of stacks (--no- to drop)"),
	PP_OPT_STRING(0, "cgroups", C(cgroups), "names", "record these cgroups"),
	PP_OPT_INT('m', "mmap-pages", C(mmap_pages), "pages", "ring buffer pages per CPU"),
	PP_OPT_END(),
};

struct pp_option *pp_opts_rebase(const struct pp_option *rel, void *base, size_t extra)
{
	size_t n = 0;

	while (rel && rel[n].type != PP_OPT_T_END)
		n++;
	struct pp_option *t = pp_xcalloc(n + extra + 1, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		t[i] = rel[i];
		if (rel[i].type != PP_OPT_T_GROUP && rel[i].type != PP_OPT_T_INCLUDE)
			t[i].value = (char *)base + (uintptr_t)rel[i].value;
	}
	return t;
}

void pp_plan_add_event(struct pp_plan *p, const char *selector)
{
	p->events = pp_xrealloc(p->events, (p->nr_events + 1) * sizeof(*p->events));
	p->events[p->nr_events++] = pp_xstrdup(selector);
}

void pp_plan_add_eventf(struct pp_plan *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = pp_xvasprintf(fmt, ap);
	va_end(ap);
	p->events = pp_xrealloc(p->events, (p->nr_events + 1) * sizeof(*p->events));
	p->events[p->nr_events++] = s;
}

void pp_plan_release(struct pp_plan *p)
{
	for (size_t i = 0; i < p->nr_events; i++)
		free(p->events[i]);
	free(p->events);
	free(p->cpus);
	free(p->pids);
	free(p->tids);
	free(p->cgroups);
	memset(p, 0, sizeof(*p));
}

const struct pp_plan_ops pp_plan_none = { 0 };

int pp_plan_build(const char *name, const struct pp_plan_ops *ops, int argc, const char **argv,
		  struct pp_plan *p, char *err, size_t errsz)
{
	struct pp_common_opts common = { .user_callchain = true, .kernel_callchain = true };
	void *opts = pp_xcalloc(1, ops->opts_size ? ops->opts_size : 1);
	struct pp_option *own = pp_opts_rebase(ops->options, opts, 2);
	struct pp_option *com = pp_opts_rebase(pp_common_options, &common, 0);
	size_t n = 0;
	int rc;

	while (own[n].type != PP_OPT_T_END)
		n++;
	own[n] = (struct pp_option){ .type = PP_OPT_T_INCLUDE, .include = com };
	rc = pp_parse_options(argc, argv, own, 0, err, errsz);
	if (rc >= 0 && rc != PP_OPT_HELP) {
		struct pp_plan_args a = { opts, &common, rc, argv };
		p->callchain = common.callchain;
		p->user_callchain = common.user_callchain;
		p->kernel_callchain = common.kernel_callchain;
		p->exclude_user = common.exclude_user;
		p->exclude_kernel = common.exclude_kernel;
		p->freq = common.freq;
		p->period = common.period_ns;
		p->mmap_pages = common.mmap_pages;
		p->cpus = common.cpus ? pp_xstrdup(common.cpus) : NULL;
		p->pids = common.pids ? pp_xstrdup(common.pids) : NULL;
		p->tids = common.tids ? pp_xstrdup(common.tids) : NULL;
		p->cgroups = common.cgroups ? pp_xstrdup(common.cgroups) : NULL;
		if (ops->plan) {
			rc = ops->plan(p, &a, err, errsz);
		} else {
			for (size_t i = 0; i < common.events.nr; i++)
				pp_plan_add_event(p, common.events.v[i]);
			rc = 0;
		}
		if (!rc && !p->nr_events) {
			snprintf(err, errsz, "%s: nothing to record: give events with -e", name);
			rc = PP_EUSAGE;
		}
	}
	pp_strlist_release(&common.events);
	free(own);
	free(com);
	free(opts);
	return rc;
}
