/* SPDX-License-Identifier: MIT */
/*
 * machine-perf.c - the machine's lines of `pp-record --check` that only
 * perf_event_open() answers: a hardware PMU, breakpoints, the perf clock;
 * and the clock source and tracefs clocks (check.h).
 *
 * Each probe opens one event on this process, disabled, and closes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "common/sys.h"
#include "common/sysfile.h"
#include "record/check/check.h"
#include "record/perf/evsel.h"

/* Open @a on this process, disabled, and close it.  Return: 0 or errno. */
static int try_open(struct perf_event_attr *a)
{
	int fd;

	a->size = sizeof(*a);
	a->disabled = 1;
	fd = pp_sys_perf_event_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void check_pmu(struct rec_check *c)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .exclude_kernel = 1 };
	int e;

	if (!rec_have_pmu()) {
		rec_check_add(c, "hardware PMU", REC_CHECK_WARN,
			      "bare metal, or a VM with a virtual PMU; cpu-clock samples without one",
			      "none (no /sys/bus/event_source/devices/cpu): cycles, instructions, "
			      "cache and memory events refused");
		return;
	}
	e = try_open(&a);
	if (!e)
		rec_check_add(c, "hardware PMU", REC_CHECK_YES, NULL, "cycles opened");
	else
		rec_check_add(c, "hardware PMU", REC_CHECK_WARN,
			      "free the counters (NMI watchdog: sysctl -w kernel.nmi_watchdog=0) or use cpu-clock",
			      "present, but cycles cannot be opened: %s", strerror(e));
}

static void check_breakpoints(struct rec_check *c)
{
	static volatile long target;
	struct perf_event_attr a = { .type = PERF_TYPE_BREAKPOINT, .bp_type = HW_BREAKPOINT_W,
				     .bp_addr = (unsigned long)&target, .bp_len = HW_BREAKPOINT_LEN_8,
				     .sample_period = 1, .exclude_kernel = 1, .exclude_hv = 1 };
	int e = try_open(&a);

	if (!e)
		rec_check_add(c, "breakpoints", REC_CHECK_YES, NULL, "a write breakpoint opened (mem:ADDR)");
	else
		rec_check_add(c, "breakpoints", REC_CHECK_WARN,
			      e == ENOSPC ? "free a debug register (a debugger or another perf holds them)" :
			      e == EACCES || e == EPERM ? "CAP_PERFMON, or a lower perf_event_paranoid" :
					    "a kernel with CONFIG_HAVE_HW_BREAKPOINT (mem: events need it)",
			      "a write breakpoint cannot be opened: %s", strerror(e));
}

/* The perf clock pp-record asks for (use_clockid, CLOCK_MONOTONIC), the clock source, tracefs's. */
static void check_clocks(struct rec_check *c)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
				     .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
				     .exclude_kernel = 1, .exclude_hv = 1 };
	char src[64] = "unknown", tc[256] = "";
	struct timespec ts;
	int e = try_open(&a);

	pp_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", src,
		     sizeof(src));
	pp_read_line("/sys/kernel/tracing/trace_clock", tc, sizeof(tc));
	if (e == EINVAL || clock_gettime(CLOCK_MONOTONIC, &ts)) {
		rec_check_add(c, "clocks", REC_CHECK_NO, "Linux 4.1 or later (perf_event_attr.use_clockid)",
			      "perf events cannot be stamped with CLOCK_MONOTONIC: %s", strerror(e));
		rec_check_fail(c, "perf events cannot be stamped with CLOCK_MONOTONIC (use_clockid: Linux 4.1)",
			       NULL);
		return;
	}
	if (e) {
		rec_check_add(c, "clocks", REC_CHECK_WARN, NULL,
			      "the perf clock cannot be tried: %s; clock source %s", strerror(e), src);
		return;
	}
	rec_check_add(c, "clocks", strcmp(src, "tsc") && strcmp(src, "arch_sys_counter") &&
			  strcmp(src, "kvm-clock") ? REC_CHECK_WARN : REC_CHECK_YES,
		      strcmp(src, "tsc") && strcmp(src, "arch_sys_counter") && strcmp(src, "kvm-clock") ?
			      "a fast clock source (tsc): each timestamp costs more with this one" : NULL,
		      "perf CLOCK_MONOTONIC; clock source %s; tracefs clocks %s", src,
		      !*tc ? "unknown" : strstr(tc, "mono") && strstr(tc, "local") ?
		      "local and mono" : "without mono (events go through perf)");
}

void rec_check_machine_perf(struct rec_check *c)
{
	check_pmu(c);
	check_breakpoints(c);
	check_clocks(c);
}
