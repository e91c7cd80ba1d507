/* SPDX-License-Identifier: MIT */
/*
 * watchdog-plan.c - what watchdog (perf-prof's lockup prediction) records.
 *
 * perf-prof first finds each CPU's watchdog hrtimer (hrtimer_expire_entry
 * filtered on function==watchdog_timer_fn), then filters the hrtimer events
 * on those pointers.  A plan is one step, so pp filters hrtimer_start and
 * hrtimer_expire_entry on the function (its address from /proc/kallsyms) and
 * records every hrtimer_cancel (it has no function field; the analyzer keeps
 * the watchdog's), plus sched_switch to the stopper threads that run the
 * soft lockup check (migration/N since 4.19, watchdog/N before), on the CPUs
 * of kernel.watchdog_cpumask (and -C).  With -F, the hard lockup half: NMI
 * cycles samples (kernel stacks with -g), or cpu-clock where there is no
 * hardware PMU, as perf-prof does in a VM.  A kernel whose lockup detector is
 * off or absent is refused in one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/pmu.h"
#include "common/sysfile.h"
#include "common/units.h"

/* /proc/sys/kernel/@name into @buf, newline cut.  Return: false if unreadable. */
static bool read_sysctl(const char *name, char *buf, size_t sz)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return pp_read_line(path, buf, sz);
}

/* The address of symbol @name in /proc/kallsyms (0: hidden).  Return: false if absent. */
static bool ksym_addr(const char *name, unsigned long long *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx %c %255s", addr, &type, sym) == 3 && !strcmp(sym, name);
	fclose(f);
	return found;
}

/* The CPUs of @mask that -C @cpus keeps (all of @mask without -C), as a list. */
static int cpus_of(const char *mask, const char *cpus, char **out, char *err, size_t errsz)
{
	int *m = NULL, *c = NULL;
	size_t nm = 0, nc = 0;
	struct pp_buf b = PP_BUF_INIT;
	int rc = 0;

	if (pp_parse_list(mask, 0, &m, &nm)) {
		snprintf(err, errsz, "watchdog: kernel.watchdog_cpumask '%s' is not a CPU list", mask);
		return PP_ESYNTAX;
	}
	if (cpus && pp_parse_list(cpus, 0, &c, &nc)) {
		snprintf(err, errsz, "watchdog: bad -C list '%s'", cpus);
		rc = PP_ESYNTAX;
		goto out;
	}
	for (size_t i = 0; i < nm; i++) {
		bool keep = !cpus;

		for (size_t k = 0; k < nc && !keep; k++)
			keep = c[k] == m[i];
		if (keep)
			pp_buf_addf(&b, "%s%d", b.len ? "," : "", m[i]);
	}
	if (!b.len) {
		snprintf(err, errsz, "watchdog: -C %s: no CPU of it has the watchdog "
			 "(kernel.watchdog_cpumask is %s)", cpus, mask);
		rc = PP_EUSAGE;
		goto out;
	}
	*out = pp_buf_detach(&b);
out:
	pp_buf_release(&b);
	free(m);
	free(c);
	return rc;
}

static int watchdog_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;
	char on[16], thresh[16], mask[256];
	struct utsname u;
	int major = 0, minor = 0, rc;
	unsigned long long fn = 0;
	bool found;

	if (c->events.nr || c->pids || c->tids) {
		snprintf(err, errsz, "watchdog: takes no -e, -p or -t: it watches CPUs (-C)");
		return PP_EUSAGE;
	}
	if (!read_sysctl("watchdog", on, sizeof(on)) ||
	    !read_sysctl("watchdog_thresh", thresh, sizeof(thresh))) {
		snprintf(err, errsz, "watchdog: this kernel has no lockup detector "
			 "(no /proc/sys/kernel/watchdog: CONFIG_LOCKUP_DETECTOR is off)");
		return PP_ENOTSUP;
	}
	if (!strcmp(on, "0") || !strcmp(thresh, "0")) {
		snprintf(err, errsz, "watchdog: the kernel's lockup detector is off (kernel.watchdog "
			 "%s, kernel.watchdog_thresh %s): sysctl -w kernel.watchdog=1 turns it on", on,
			 thresh);
		return PP_ENOTSUP;
	}
	found = ksym_addr("watchdog_timer_fn", &fn);
	if (!found || !fn) {
		snprintf(err, errsz, !found ? "watchdog: no watchdog_timer_fn in /proc/kallsyms: this "
			 "kernel's lockup detector has no watchdog hrtimer to follow"
			 : "watchdog: kernel addresses are hidden (kernel.kptr_restrict): the "
			 "watchdog hrtimer cannot be told from the others");
		return PP_ENOTSUP;
	}
	if (!read_sysctl("watchdog_cpumask", mask, sizeof(mask)))
		snprintf(mask, sizeof(mask), "0-%ld", sysconf(_SC_NPROCESSORS_CONF) - 1);
	free(p->cpus);
	p->cpus = NULL;
	rc = cpus_of(mask, c->cpus, &p->cpus, err, errsz);
	if (rc)
		return rc;
	pp_plan_add_eventf(p, "timer:hrtimer_expire_entry/function==0x%llx/", fn);
	pp_plan_add_eventf(p, "timer:hrtimer_start/function==0x%llx/", fn);
	pp_plan_add_event(p, "timer:hrtimer_cancel");
	/* the soft lockup check runs in the stopper thread since 4.19, its own thread before */
	if (!uname(&u))
		sscanf(u.release, "%d.%d", &major, &minor);
	pp_plan_add_eventf(p, "sched:sched_switch/next_comm~\"%s/*\"/",
			   major > 4 || (major == 4 && minor >= 19) || !major ? "migration"
									: "watchdog");
	/* stacks only for the samples, and only their kernel part (perf-prof's) */
	p->callchain = false;
	p->user_callchain = false;
	if (c->freq) {
		bool pmu = pp_have_pmu();

		pp_plan_add_eventf(p, "%s%s", pmu ? "cycles" : "cpu-clock",
				   c->callchain ? "//stack/" : "");
		if (!pmu)
			pp_info("watchdog: no hardware PMU: the hard lockup check samples cpu-clock "
				"(a timer interrupt, not an NMI), as perf-prof does in a VM");
	}
	return 0;
}

const struct pp_plan_ops azp_watchdog_plan = {
	.plan = watchdog_plan,
};
