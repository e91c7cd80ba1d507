/* SPDX-License-Identifier: MIT */
/*
 * plan.c - the common analyzer options and building a recording plan.
 *
 * The common table is declared once here and included by every analyzer's
 * table, on the record side (pp-record --for, pp) and the analysis side
 * alike, so both parse exactly the same command lines.  perf-prof's options
 * that mean nothing to a recorder replaying a capture are accepted and said
 * so with -v only (pp_common_opts_note()), or refused in one line naming
 * what pp offers instead (PP_OPT_REFUSED_*); docs/analyzers.md "perf-prof
 * options" has the table and the reasons.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/callgraph.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"

#define C(f) PP_AZOPT(struct pp_common_opts, f)

/* why --nr_running_min and --nr_running_max are refused */
#define NR_RUNNING_REFUSED                                                                  \
	"perf-prof's eBPF filter reads the runqueue length at the sample; a pp capture does " \
	"not hold it (rundelay and task-state show waiting tasks)"

/* --call-graph fp|dwarf[,SIZE]: -g, and the way stacks are recorded (value: call_graph) */
static int call_graph_cb(const struct pp_option *opt, const char *arg, bool unset, char *err,
			 size_t errsz)
{
	uint32_t *mode = opt->value;
	struct pp_common_opts *c = (struct pp_common_opts *)
		((char *)mode - offsetof(struct pp_common_opts, call_graph));
	int rc = 0;

	if (unset)
		*mode = 0;
	else
		rc = pp_callgraph_parse(arg, mode, err, errsz);
	c->callchain = *mode != 0;
	return rc;
}

const struct pp_option pp_common_options[] = {
	PP_OPT_GROUP("Common options:"),
	PP_OPT_STRLIST('e', "event", C(events), "EVENT,...", "event selector sys:name/filter/ATTR/ (repeat for positions)"),
	PP_OPT_TIME('i', "interval", C(interval_ns), 1000000, "report every <ms> of capture time"),
	PP_OPT_STRING(0, "time", C(time_range), "start,end", "analyse only this range: 12.5,14 (seconds) or +2s,+5s from the start"),
	PP_OPT_STRING('C', "cpus", C(cpus), "list", "only events of these CPUs"),
	PP_OPT_STRING('p', "pids", C(pids), "list", "only events of these processes"),
	PP_OPT_STRING('t', "tids", C(tids), "list", "only events of these threads"),
	PP_OPT_BOOL(0, "inherit", C(inherit),
		    "with -p/-t: also the tasks they fork while recorded, and theirs"),
	PP_OPT_BOOL(0, "perins", C(perins), "report per instance (CPU or thread)"),
	PP_OPT_TIME(0, "than", C(than_ns), 1, "report only what is above this (s/ms/us/ns)"),
	PP_OPT_TIME(0, "only-than", C(only_than_ns), 1, "print interval tables only when something went over"),
	PP_OPT_TIME(0, "lower", C(lower_ns), 1, "report what is below this"),
	PP_OPT_BOOL('g', NULL, C(callchain), "record / print call stacks (frame pointers)"),
	{ .type = PP_OPT_T_CALLBACK, .long_name = "call-graph", .value = C(call_graph),
	  .argh = "fp|dwarf[,size]", .cb = call_graph_cb,
	  .help = "call stacks: frame pointers, or user stack copies of SIZE bytes (8192)" },
	PP_OPT_BOOL(0, "order", C(order), "accepted for perf-prof compatibility: captures are ordered"),
	PP_OPT_STRING('k', "key", C(key), "EXPR", "default key expression"),
	PP_OPT_STRING(0, "filter", C(filter), "filter", "analyzer-specific filter"),
	PP_OPT_STRING_OPTARG(0, "detail", C(detail), "how", "", "more detail (analyzer-specific)"),
	PP_OPT_STRING(0, "flame-graph", C(flame_graph), "file", "write folded stacks to <file> (.svg: an SVG)"),
	PP_OPT_STRING(0, "heatmap", C(heatmap), "file", "write latency heatmap data"),
	PP_OPT_U64('N', "exit-N", C(exit_n), "N", "stop after N events"),
	PP_OPT_STRING(0, "format", C(format), "text|json|csv", "output format"),
	PP_OPT_STRING('o', "output", C(output), "file", "write the report to <file>"),
	PP_OPT_STRING(0, "state-out", C(state_out), "file",
		      "write a mergeable state to <file> instead of the report (pp-analyze merge, report)"),
	PP_OPT_COUNT('v', "verbose", C(verbose), "more output"),
	PP_OPT_BOOL('q', "quiet", C(quiet), "accepted for perf-prof compatibility: changes nothing"),
	PP_OPT_U64(0, "clock-offset", C(clock_offset), "ns",
		   "add <ns> to the event times printed (sec.usec), not to wall times"),
	PP_OPT_BOOL(0, "monotonic", C(monotonic),
		    "accepted: pp's event times are CLOCK_MONOTONIC already"),
	PP_OPT_BOOL(0, "tsc", C(tsc),
		    "accepted: times stay in ns (CLOCK_MONOTONIC has no TSC conversion)"),
	PP_OPT_STRING(0, "kvmclock", C(kvmclock), "uuid",
		      "accepted: times stay in the host's ns, as with --tsc"),
	PP_OPT_REFUSED_ARG(0, "symbols", "binary",
			   "perf-prof's address-to-symbol mode is not in pp: the capture "
			   "carries the symbols its analyzers print"),
	PP_OPT_GROUP("Recording options (used by pp-record --for and pp):"),
	PP_OPT_U64('F', "freq", C(freq), "hz", "sampling frequency of clock events"),
	PP_OPT_TIME(0, "period", C(period_ns), 1, "sampling period"),
	PP_OPT_BOOL(0, "exclude-user", C(exclude_user), "do not sample user space"),
	PP_OPT_BOOL(0, "exclude-kernel", C(exclude_kernel), "do not sample the kernel"),
	PP_OPT_BOOL(0, "user-callchain", C(user_callchain), "keep user frames of stacks (--no- to drop)"),
	PP_OPT_BOOL(0, "kernel-callchain", C(kernel_callchain), "keep kernel frames of stacks (--no- to drop)"),
	PP_OPT_BOOL('G', "exclude-host", C(exclude_host), "count in guests only (PMU events)"),
	PP_OPT_BOOL(0, "exclude-guest", C(exclude_guest), "do not count in guests (PMU events)"),
	PP_OPT_STRING(0, "cgroups", C(cgroups), "names", "record these cgroups"),
	PP_OPT_INT('m', "mmap-pages", C(mmap_pages), "pages", "ring buffer pages per CPU"),
	PP_OPT_INT(0, "watermark", C(watermark), "pct",
		   "wake pp-record when a ring is <pct>% full"),
	PP_OPT_INT(0, "usage-self", C(usage_self), "ms",
		   "accepted: pp prints its CPU usage on SIGUSR2"),
	PP_OPT_STRING(0, "perfeval-cpus", C(perfeval_cpus), "cpus",
		      "every -i: the events per second that happened on these CPUs"),
	PP_OPT_STRING(0, "perfeval-pids", C(perfeval_pids), "pids",
		      "every -i: the events per second of these threads"),
	PP_OPT_INT(0, "sampling-limit", C(sampling_limit), "N",
		   "with --perfeval-*: stop when an instance has more events a second"),
	PP_OPT_REFUSED_FLAG("python-callchain",
			    "pp's call stacks have no Python frames (perf-prof's pystack)"),
	/* perf-prof's eBPF filters: what a sample does not carry cannot be filtered afterwards */
	PP_OPT_INT(0, "exclude_pid", C(exclude_pid), "pid", "leave out the events of this process"),
	PP_OPT_REFUSED_ARG(0, "irqs_disabled", "0|1",
			   "perf-prof's eBPF filter reads the CPU's interrupt flag at the sample; "
			   "a pp capture does not hold it (irq-off finds windows with interrupts off)"),
	PP_OPT_REFUSED_ARG(0, "tif_need_resched", "0|1",
			   "perf-prof's eBPF filter reads the task's TIF_NEED_RESCHED at the sample; "
			   "a pp capture does not hold it"),
	PP_OPT_REFUSED_ARG(0, "nr_running_min", "N", NR_RUNNING_REFUSED),
	PP_OPT_REFUSED_ARG(0, "nr_running_max", "N", NR_RUNNING_REFUSED),
	PP_OPT_REFUSED_ARG(0, "sched_policy", "N",
			   "perf-prof's eBPF filter reads the task's policy at the sample; a pp "
			   "capture does not hold it (profile --prio filters by priority)"),
	PP_OPT_END(),
};

int pp_opt_refuse(const struct pp_option *opt, const char *arg, bool unset, char *err,
		  size_t errsz)
{
	(void)arg;
	(void)unset;
	snprintf(err, errsz, "--%s: %s", opt->long_name, opt->help);
	return PP_EUSAGE;
}

void pp_common_opts_note(const char *name, const struct pp_common_opts *c, enum pp_note_side side)
{
	if (!c->verbose)
		return;
	if (side == PP_NOTE_RECORD) {
		if (c->usage_self)
			pp_note("%s: --usage-self: pp prints the CPU usage of pp-record and "
				"pp-analyze when sent SIGUSR2", name);
		if (c->sampling_limit && !c->perfeval_cpus && !c->perfeval_pids)
			pp_note("%s: --sampling-limit: no effect without perf-prof's "
				"--perfeval-cpus/--perfeval-pids; pp-record counts what it cannot "
				"keep up with as losses", name);
		return;
	}
	/* perf-prof on CLOCK_MONOTONIC: "TSC conversion does not support the --monotonic option" */
	if (c->tsc || c->kvmclock)
		pp_note("%s: --%s: pp's event clock is CLOCK_MONOTONIC, which has no TSC "
			"conversion: times stay in ns%s", name, c->tsc ? "tsc" : "kvmclock",
			c->clock_offset ? " and --clock-offset is dropped, as perf-prof does" : "");
	if (c->monotonic)
		pp_note("%s: --monotonic: pp's event times are CLOCK_MONOTONIC already", name);
}

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

void pp_plan_add_counter(struct pp_plan *p, const char *selector)
{
	p->counters = pp_xrealloc(p->counters, (p->nr_counters + 1) * sizeof(*p->counters));
	p->counters[p->nr_counters++] = pp_xstrdup(selector);
}

int pp_plan_count_events(struct pp_plan *p, const char *name, const struct pp_common_opts *c,
			 bool leader, char *err, size_t errsz)
{
	uint64_t interval = c->interval_ns ? c->interval_ns : 1000000000ull;

	if (!c->events.nr) {
		snprintf(err, errsz, "%s: -e EVENTS is required: the events to count", name);
		return PP_EUSAGE;
	}
	if (leader && (c->pids || c->tids)) {
		snprintf(err, errsz, "%s can only be attached to cpu: use -C, not -p/-t (stat counts tasks)",
			 name);
		return PP_EUSAGE;
	}
	p->count_period = c->period_ns ? c->period_ns : interval;
	if (p->count_period > interval) {
		snprintf(err, errsz, "%s: --period %llu ms is longer than -i %llu ms", name,
			 (unsigned long long)(p->count_period / 1000000),
			 (unsigned long long)(interval / 1000000));
		return PP_EUSAGE;
	}
	p->count_leader = leader;
	/* the counts are the report: the leader's own samples (whom it interrupted) are not */
	p->count_no_samples = leader && !c->callchain;
	for (size_t i = 0; i < c->events.nr; i++)
		pp_plan_add_counter(p, c->events.v[i]);
	/* the leader counts CPUs, even around a COMMAND; stat counts a COMMAND's threads */
	if (leader && !c->pids && !c->tids)
		p->all_cpus = true;
	return 0;
}

const struct pp_option pp_count_options[] = {
	PP_OPT_BOOL(0, "packed", PP_AZOPT(struct pp_count_opts, packed),
		    "perf-prof's packed layout (a terminal gets it when a round has <= 5 slots)"),
	PP_OPT_END(),
};

int pp_plan_cpu_counters(struct pp_plan *p, const char *name, const char *what,
			 const char *const *counters, const struct pp_common_opts *c, char *err,
			 size_t errsz)
{
	if (c->pids || c->tids) {
		snprintf(err, errsz, "%s can only be bound to CPU: use -C, not -p/-t", name);
		return PP_EUSAGE;
	}
	if (c->events.nr) {
		snprintf(err, errsz, "%s counts %s: it takes no -e", name, what);
		return PP_EUSAGE;
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	for (; *counters; counters++)
		pp_plan_add_counter(p, *counters);
	p->all_cpus = true;
	return 0;
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
	for (size_t i = 0; i < p->nr_counters; i++)
		free(p->counters[i]);
	free(p->counters);
	free(p->cpus);
	free(p->pids);
	free(p->tids);
	free(p->cgroups);
	memset(p, 0, sizeof(*p));
}

const struct pp_plan_ops pp_plan_none = { 0 };

/* The recording options pp-record would refuse, refused with the analyzer's arguments. */
static int record_opts_check(const struct pp_common_opts *c, char *err, size_t errsz)
{
	if (c->watermark < 0 || c->watermark > 100) {
		snprintf(err, errsz, "--watermark %d: expected 1 to 100 (percent)", c->watermark);
		return PP_ERANGE;
	}
	if (c->exclude_host && c->exclude_guest) {
		snprintf(err, errsz,
			 "-G/--exclude-host and --exclude-guest together leave nothing to count");
		return PP_EUSAGE;
	}
	return 0;
}

int pp_plan_fill(const struct pp_plan_ops *ops, const struct pp_plan_args *a, struct pp_plan *p,
		 char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	p->callchain = c->callchain;
	p->dwarf_sz = c->callchain && c->call_graph > PP_CALLGRAPH_FP ? c->call_graph : 0;
	p->user_callchain = c->user_callchain;
	p->kernel_callchain = c->kernel_callchain;
	p->exclude_user = c->exclude_user;
	p->exclude_kernel = c->exclude_kernel;
	p->freq = c->freq;
	p->period = c->period_ns;
	p->mmap_pages = c->mmap_pages;
	p->watermark = c->watermark;
	p->exclude_host = c->exclude_host;
	p->exclude_guest = c->exclude_guest;
	p->cpus = c->cpus ? pp_xstrdup(c->cpus) : NULL;
	p->pids = c->pids ? pp_xstrdup(c->pids) : NULL;
	p->tids = c->tids ? pp_xstrdup(c->tids) : NULL;
	p->cgroups = c->cgroups ? pp_xstrdup(c->cgroups) : NULL;
	if (ops->plan)
		return ops->plan(p, a, err, errsz);
	for (size_t i = 0; i < c->events.nr; i++)
		pp_plan_add_event(p, c->events.v[i]);
	return 0;
}

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
		int bad = record_opts_check(&common, err, errsz);

		if (bad)
			rc = bad;	/* else rc stays the number of positional arguments */
	}
	if (rc >= 0 && rc != PP_OPT_HELP) {
		struct pp_plan_args a = { opts, &common, rc, argv };

		rc = pp_plan_fill(ops, &a, p, err, errsz);
		if (!rc && !p->nr_events && !p->nr_counters) {
			snprintf(err, errsz, "%s: nothing to record: give events with -e", name);
			rc = PP_EUSAGE;
		}
		if (!rc)
			pp_common_opts_note(name, &common, PP_NOTE_RECORD);
	}
	pp_strlist_release(&common.events);
	free(own);
	free(com);
	free(opts);
	return rc;
}
