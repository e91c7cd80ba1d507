/* SPDX-License-Identifier: MIT */
/*
 * split-lock-plan.c - what split-lock records: the CPU's split-lock event as
 * a raw counter (r10f4, SQ_MISC.SPLIT_LOCK, on Intel; r125, LsLocks.BusLock,
 * on AMD), counted per CPU (per thread with -p/-t) and read every -i; with
 * -T N also sampled every N split locks, with the IP (and stacks with -g).
 * perf-prof's --test starts a split-lock load inside perf-prof: pp starts no
 * load of its own, the command after -- is one (tests/load/splitlock.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/plan.h"

struct split_lock_plan_opts {
	uint64_t trigger;		/* -T: sample every N split locks (0: count only) */
};

#define O(f) PP_AZOPT(struct split_lock_plan_opts, f)

static const struct pp_option split_lock_options[] = {
	PP_OPT_GROUP("split-lock options:"),
	PP_OPT_U64('T', "trigger", O(trigger), "N",
		   "also sample every N split locks: the RIPs (and stacks with -g)"),
	PP_OPT_REFUSED_FLAG("test",
			    "pp starts no load of its own: give one as the command, "
			    "e.g. pp split-lock -i 1000 -- build/load/splitlock 5 (pp's tree)"),
	PP_OPT_END(),
};

/* The CPU's vendor_id from /proc/cpuinfo (PP_CPU_VENDOR instead, for the tests). */
static void cpu_vendor(char *buf, size_t sz)
{
	const char *env = getenv("PP_CPU_VENDOR");
	char line[256];
	FILE *f;

	snprintf(buf, sz, "%s", env ? env : "unknown");
	if (env || !(f = fopen("/proc/cpuinfo", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (strncmp(line, "vendor_id", 9) || !v)
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, sz, "%s", v);
		break;
	}
	fclose(f);
}

static int split_lock_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err,
			   size_t errsz)
{
	const struct split_lock_plan_opts *o = a->opts;
	const struct pp_common_opts *c = a->common;
	const char *ev;
	char vendor[64];

	if (c->events.nr) {
		snprintf(err, errsz, "split-lock counts the CPU's split locks: it takes no -e");
		return PP_EUSAGE;
	}
	cpu_vendor(vendor, sizeof(vendor));
	if (!strcmp(vendor, "GenuineIntel"))
		ev = "r10f4";
	else if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine"))
		ev = "r125";
	else {
		snprintf(err, errsz, "split-lock exists only on Intel and AMD x86 CPUs (this one: %s)",
			 vendor);
		return PP_ENOTSUP;
	}
	p->count_period = c->interval_ns ? c->interval_ns : 1000000000ull;
	pp_plan_add_counter(p, ev);
	if (o->trigger) {
		pp_plan_add_event(p, ev);
		p->period = o->trigger;
	}
	if (!c->pids && !c->tids)
		p->all_cpus = true;
	return 0;
}

const struct pp_plan_ops azp_split_lock_plan = {
	.options = split_lock_options,
	.opts_size = sizeof(struct split_lock_plan_opts),
	.plan = split_lock_plan,
};
