/* SPDX-License-Identifier: MIT */
/*
 * cpu-util-plan.c - what cpu-util records, on every CPU (or -C):
 *  - with a hardware PMU, perf-prof's counter: cycles counted per CPU and read
 *    every -i, with the exclude bits given (--exclude-user: [sys] ...);
 *  - without one (virtual machines), the software fallback: cpu-clock sampled
 *    every --period (1 ms by default, or 1/-F s) with its IP and task, both
 *    modes and the idle task included, so that the analysis can tell user,
 *    kernel and idle time apart.  A counted cpu-clock would not do: the kernel
 *    counts wall time for it whatever its exclude bits.
 */
#include <stdio.h>

#include "analyzers/cpu-util.h"
#include "common/err.h"
#include "common/plan.h"
#include "common/pmu.h"

#define O(f) PP_AZOPT(struct cpu_util_opts, f)

static const struct pp_option cu_options[] = {
	PP_OPT_GROUP("cpu-util options:"),
	PP_OPT_BOOL(0, "split", O(split),
		    "print the [usr] and [sys] lines under each [all] line (cpu-clock fallback)"),
	PP_OPT_END(),
};

static int cu_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->events.nr) {
		snprintf(err, errsz, "cpu-util: does not take -e: it records cycles, or cpu-clock "
			 "where there is no PMU");
		return PP_EUSAGE;
	}
	if (c->pids || c->tids) {
		snprintf(err, errsz, "cpu-util watches CPUs: use -C, not -p/-t");
		return PP_EUSAGE;
	}
	if (c->exclude_user && c->exclude_kernel) {
		snprintf(err, errsz,
			 "cpu-util: --exclude-user and --exclude-kernel leave nothing to count");
		return PP_EUSAGE;
	}
	p->all_cpus = true;
	p->callchain = false;
	if (pp_have_pmu()) {
		pp_plan_add_counter(p, "cycles");
		p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
		return 0;
	}
	if (c->exclude_host || c->exclude_guest) {
		snprintf(err, errsz, "cpu-util: -G/--exclude-host and --exclude-guest need cycles "
			 "counters and this machine has no PMU: its cpu-clock fallback cannot tell "
			 "guest time apart");
		return PP_EUSAGE;
	}
	pp_plan_add_event(p, "cpu-clock");
	p->period = c->period_ns ? c->period_ns
		  : c->freq ? 1000000000ull / c->freq : CPU_UTIL_CLOCK_PERIOD_NS;
	p->freq = 0;
	/* both modes recorded: --exclude-user/--exclude-kernel choose the line when analysing */
	p->exclude_user = false;
	p->exclude_kernel = false;
	return 0;
}

const struct pp_plan_ops azp_cpu_util_plan = {
	.options = cu_options,
	.opts_size = sizeof(struct cpu_util_opts),
	.plan = cu_plan,
};
