/* SPDX-License-Identifier: MIT */
/*
 * bpf-kvm-exit-plan.c - what bpf-kvm-exit (perf-prof's bpf:kvm_exit) records.
 *
 * perf-prof builds each exit in a BPF program; pp computes the same from
 * tracepoints: kvm:kvm_exit and kvm:kvm_entry, plus, on CPUs (no -p/-t),
 * sched:sched_switch and sched:sched_wakeup for the switches and the run
 * delay between an exit and its entry.  With -p/-t, as perf-prof, only the
 * exits and entries of those tasks.  A kernel without the kvm tracepoints
 * (KVM not loaded) is refused here in one line.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzers/bpf-kvm-exit.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct bpf_kvm_exit_opts, f)

static const struct pp_option bpf_kvm_exit_options[] = {
	PP_OPT_GROUP("bpf:kvm_exit options:"),
	PP_OPT_TIME(0, "threshold", O(threshold_ns), 1,
		    "only exits longer than this count (perf-prof's BPF threshold; 1ms)"),
	PP_OPT_STRING(0, "output2", O(output2), "file",
		      "append, per process and interval, the largest non-HLT delay to <file>"),
	PP_OPT_END(),
};

/*
 * Whether tracefs shows kvm:kvm_exit; true when tracefs is nowhere to be
 * seen (pp-record mounts it and says what is missing itself).  PP_TRACEFS
 * names the one directory to look in instead, for the tests.
 */
static bool kvm_tracepoints(void)
{
	const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *env = getenv("PP_TRACEFS");
	char path[PATH_MAX];

	if (env && *env)
		roots[0] = roots[1] = env;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/events/kvm/kvm_exit", roots[i]);
		return access(path, F_OK) == 0;
	}
	return true;
}

static int bpf_kvm_exit_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			     size_t errsz)
{
	const struct pp_common_opts *c = a->common;

	if (c->events.nr) {
		snprintf(err, errsz, "bpf:kvm_exit: does not take -e: it records kvm:kvm_exit, "
			 "kvm:kvm_entry, sched:sched_switch and sched:sched_wakeup");
		return PP_EUSAGE;
	}
	if (!kvm_tracepoints()) {
		snprintf(err, errsz, "bpf:kvm_exit: this kernel has no kvm:kvm_exit tracepoint: "
			 "KVM is not loaded (modprobe kvm_intel or kvm_amd)");
		return PP_EUNKNOWN_EVENT;
	}
	pp_plan_add_event(p, "kvm:kvm_exit");
	pp_plan_add_event(p, "kvm:kvm_entry");
	if (c->pids || c->tids)
		return 0;
	/* a vCPU's switches are emitted by whichever task runs: every CPU's */
	pp_plan_add_event(p, "sched:sched_switch");
	pp_plan_add_event(p, "sched:sched_wakeup");
	return 0;
}

const struct pp_plan_ops azp_bpf_kvm_exit_plan = {
	.options = bpf_kvm_exit_options,
	.opts_size = sizeof(struct bpf_kvm_exit_opts),
	.plan = bpf_kvm_exit_plan,
};
