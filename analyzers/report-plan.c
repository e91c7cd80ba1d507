/* SPDX-License-Identifier: MIT */
/*
 * report-plan.c - what `pp report` and `pp-record --for report` record: the
 * sampling event profile takes (cycles where there is a PMU, else cpu-clock) with
 * call stacks at -F Hz (997 by default), and the scheduler events task-state and
 * rundelay take (sched_switch, sched_wakeup, sched_wakeup_new) on every CPU;
 * with --syscalls the raw_syscalls enter/exit pair too.  The report itself makes
 * of any capture what its events allow: this is only a sensible default.
 */
#include <stdio.h>

#include "analyzers/report.h"
#include "common/err.h"
#include "common/plan.h"
#include "common/pmu.h"

#define O(f) PP_AZOPT(struct report_opts, f)

static const struct pp_option report_options[] = {
	PP_OPT_GROUP("report options:"),
	PP_OPT_INT(0, "max-rows", O(max_rows), "n", "rows each table keeps (default 100; 0: 100)"),
	PP_OPT_INT(0, "max-frames", O(max_frames), "n",
		   "frames each flame graph keeps, the largest (default 20000)"),
	PP_OPT_STRING(0, "flame-min", O(flame_min), "pct",
		      "frames under this share of a flame graph are left out (default 0.01)"),
	PP_OPT_STRING(0, "title", O(title), "text", "the page's title"),
	PP_OPT_BOOL(0, "syscalls", O(syscalls),
		    "record raw_syscalls:sys_enter/sys_exit too (pp report, pp-record --for)"),
	PP_OPT_END(),
};

static int report_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct report_opts *o = a->opts;

	if (a->common->events.nr) {
		snprintf(err, errsz, "report: does not take -e: it records the events of its "
			 "sections (--syscalls adds raw_syscalls)");
		return PP_EUSAGE;
	}
	pp_plan_add_eventf(p, "%s//stack/", pp_have_pmu() ? "cycles" : "cpu-clock");
	pp_plan_add_event(p, "sched:sched_switch");
	pp_plan_add_event(p, "sched:sched_wakeup");
	pp_plan_add_event(p, "sched:sched_wakeup_new");
	if (o->syscalls) {
		pp_plan_add_event(p, "raw_syscalls:sys_enter");
		pp_plan_add_event(p, "raw_syscalls:sys_exit");
	}
	p->all_cpus = true;	/* a switch is emitted by the task leaving the CPU */
	p->all_cpus_why = "switches into the followed tasks";
	if (!p->freq && !p->period)
		p->freq = 997;
	return 0;
}

const struct pp_plan_ops azp_report_plan = {
	.options = report_options,
	.opts_size = sizeof(struct report_opts),
	.plan = report_plan,
};
