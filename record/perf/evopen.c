/* SPDX-License-Identifier: MIT */
/*
 * evopen.c - perf_event_open() for every (CPU, unit, event) of a session.
 *
 * The first fd on a CPU owns the CPU's ring; every other fd there is
 * redirected into it (PERF_EVENT_IOC_SET_OUTPUT), and each fd's kernel id
 * goes into the id map.  Older kernels are retried without what they refuse
 * (compat.c); a filter is tried in the kernel once per evsel.
 * Not here: the attrs (evsel.c), enabling (session.c), the targets (targets.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/sys.h"
#include "record/err.h"
#include "record/perf/compat.h"
#include "record/perf/counters.h"
#include "record/perf/evopen.h"
#include "record/session.h"

static int perf_open(struct rec_session *s, struct perf_event_attr *a, pid_t pid, int cpu,
		     unsigned long flags)
{
	return rec_perf_open(a, pid, cpu, flags, &s->compat);	/* older kernels: compat.h */
}

/* /proc/sys/kernel/perf_event_paranoid; 2, the kernel's default, when it cannot be read */
static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/*
 * EACCES/EPERM: the permission that is missing, in the terms of the kernel's
 * checks (perf_event_open(2), Documentation/admin-guide/perf-security.rst):
 * CAP_PERFMON (or CAP_SYS_ADMIN) lifts them all; without it perf_event_paranoid
 * allows whole CPUs at <= 0, the kernel at <= 1, a task's user space at <= 2.
 */
static int denied(struct rec_session *s, int err, const char *what, pid_t pid,
		  const struct perf_event_attr *a, char *msg, size_t msg_sz)
{
	int p = paranoid();

	if (geteuid() == 0)
		return rec_errf(msg, msg_sz, err, "cannot open %s: permission denied even to root "
					"(kernel lockdown or a security module)", what);
	if (pid == -1)
		return rec_errf(msg, msg_sz, err, "cannot open %s: recording whole CPUs (-a, -C, "
					"cgroups, or tracepoints read from tracefs) needs CAP_PERFMON "
					"or perf_event_paranoid <= 0 (it is %d)", what, p);
	if (!a->exclude_kernel && p > 1)
		return rec_errf(msg, msg_sz, err, "cannot open %s: measuring the kernel needs "
					"CAP_PERFMON or perf_event_paranoid <= 1 (it is %d)", what, p);
	return rec_errf(msg, msg_sz, err, "cannot open %s: permission denied: needs CAP_PERFMON "
				"or perf_event_paranoid <= 2 (it is %d)", what, p);
}

static int open_error(struct rec_session *s, int err, const char *what, int cpu, pid_t pid,
		      const struct perf_event_attr *a, char *msg, size_t msg_sz)
{
	switch (-err) {
	case EACCES:
	case EPERM:
		return denied(s, err, what, pid, a, msg, msg_sz);
	case EMFILE:
	case ENFILE:
		return rec_errf(msg, msg_sz, err,
			"cannot open %s on CPU %d: too many open files (raise 'ulimit -n')", what, cpu);
	case ENOSPC:
		return rec_errf(msg, msg_sz, err,
			"cannot open %s on CPU %d: no free hardware slot (breakpoints in use?)", what, cpu);
	case ENOSYS:
		return rec_errf(msg, msg_sz, err, "cannot open %s: this kernel has no perf events "
					"(perf_event_open: Linux 2.6.31 with CONFIG_PERF_EVENTS)", what);
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return rec_errf(msg, msg_sz, err, "cannot open %s: not supported on this machine (%s)",
					what, strerror(-err));
	default:
		return rec_errf(msg, msg_sz, err, "cannot open %s on CPU %d: %s", what, cpu,
					strerror(-err));
	}
}

static void fds_add(struct rec_session *s, int fd, int evsel, int cpu_idx)
{
	if (s->nr_fds == s->cap_fds) {
		s->cap_fds = s->cap_fds ? s->cap_fds * 2 : 64;
		s->fds = pp_xrealloc(s->fds, s->cap_fds * sizeof(*s->fds));
	}
	s->fds[s->nr_fds++] = (struct rec_fd){ fd, evsel, cpu_idx, 0 };
}

/* 0 untried, 1 in the kernel, 2 refused: per evsel */
static int apply_filter(struct rec_session *s, struct rec_evsel *e, int fd, char *state, char *msg, size_t msg_sz)
{
	if (!e->filter)
		return 0;
	if (e->kind != PPF_EV_TRACEPOINT && e->kind != PPF_EV_UPROBE && e->kind != PPF_EV_KPROBE) {
		e->flags |= PPF_EVF_USER_FILTER;
		*state = 2;
		return 0;
	}
	if (*state == 2)
		return 0;
	if (pp_sys_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter) == 0) {
		*state = 1;
		e->flags |= PPF_EVF_KERNEL_FILTER;
		return 0;
	}
	if (*state == 1)
		return rec_errf(msg, msg_sz, -errno, "%s: filter '%s' accepted on one CPU, refused on another: %s",
					e->name, e->filter, strerror(errno));
	*state = 2;
	e->flags |= PPF_EVF_USER_FILTER;
	/* the analyzer's results are the same: said with -v */
	if (pp_log_level >= PP_LOG_VERBOSE)
		pp_warn("%s: the kernel cannot apply filter '%s' (%s); recording unfiltered, the analyzer will apply it",
			e->name, e->filter, strerror(errno));
	return 0;
}

static int open_one(struct rec_session *s, struct perf_event_attr *a, int evsel, const char *what,
		    pid_t pid, size_t ci, unsigned long flags, char *fstate, char *msg, size_t msg_sz)
{
	int cpu = s->tgt.cpus[ci], fd, rc;
	uint64_t kid = 0;

	fd = perf_open(s, a, pid, cpu, flags);
	if ((fd == -EACCES || fd == -EPERM) && pid != -1 && !a->exclude_kernel && geteuid() != 0 &&
	    a->type != PERF_TYPE_TRACEPOINT && paranoid() >= 2) {
		/* a task's user space is what perf_event_paranoid 2 allows: as perf does */
		a->exclude_kernel = a->exclude_hv = a->exclude_callchain_kernel = 1;
		fd = perf_open(s, a, pid, cpu, flags);
		if (fd >= 0 && !s->user_only) {
			s->user_only = true;
			pp_warn("perf_event_paranoid is %d: recording user space only (the kernel "
				"needs CAP_PERFMON or perf_event_paranoid <= 1)", paranoid());
		}
	}
	if (fd == -ESRCH && s->tgt.kind == REC_TGT_THREADS)
		return 1;		/* the thread exited meanwhile */
	if (fd < 0)
		return open_error(s, fd, what, cpu, pid, a, msg, msg_sz);
	fds_add(s, fd, evsel, (int)ci);
	if (!s->rings[ci].base) {
		rc = rec_ring_open(&s->rings[ci], fd, cpu, (size_t)s->opts.mmap_pages);
		if (rc)
			return rec_errf(msg, msg_sz, rc,
				"cannot map a %d-page ring buffer on CPU %d: %s (try a smaller -m)",
				s->opts.mmap_pages, cpu, strerror(-rc));
	} else if (pp_sys_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[ci].fd)) {
		return rec_errf(msg, msg_sz, -errno, "cannot redirect %s into the ring of CPU %d: %s",
					what, cpu, strerror(errno));
	}
	if (pp_sys_ioctl(fd, PERF_EVENT_IOC_ID, &kid))
		return rec_errf(msg, msg_sz, -errno, "cannot read the id of %s: %s", what,
					strerror(errno));
	s->fds[s->nr_fds - 1].kid = kid;
	rec_idmap_put(&s->ids, kid, evsel);
	return evsel >= 0 ? apply_filter(s, &s->evsels[evsel], fd, &fstate[evsel], msg, msg_sz) : 0;
}

/*
 * With per-task targets and every event read from tracefs, the side band is
 * recorded per CPU instead of per task: a per-task perf event costs the task
 * something at every context switch, which is what tracefs spares it.  The
 * instance's pid filter and the FORK records say which threads are followed.
 */
static bool cpu_sideband(const struct rec_session *s)
{
	if (!s->ftrace || (s->tgt.kind != REC_TGT_THREADS && s->tgt.kind != REC_TGT_WORKLOAD))
		return false;
	for (size_t i = 0; i < s->nr_evsels; i++)
		if (!s->evsels[i].ftrace)
			return false;
	return true;
}

int rec_events_open(struct rec_session *s, char *msg, size_t msg_sz)
{
	struct rec_target *t = &s->tgt;
	struct perf_event_attr track, track_cpu;
	size_t nr_units = 1, opened_units = 0;
	char *fstate = pp_xcalloc(s->nr_evsels + 1, 1);
	unsigned long flags = 0;
	int rc = 0;

	if (t->kind == REC_TGT_THREADS || t->kind == REC_TGT_WORKLOAD)
		nr_units = t->nr_tids;
	else if (t->kind == REC_TGT_CGROUP)
		nr_units = t->nr_cgroups;
	if (t->kind == REC_TGT_CGROUP)
		flags = PERF_FLAG_PID_CGROUP;
	s->rings = pp_xcalloc(t->nr_cpus, sizeof(*s->rings));
	s->lost_cpu = pp_xcalloc(t->nr_cpus, sizeof(*s->lost_cpu));
	s->exiting = pp_xcalloc(t->nr_cpus, sizeof(*s->exiting));
	rec_idmap_init(&s->ids, t->nr_cpus * nr_units * (s->nr_evsels + 1));
	rec_tracking_attr(s, &track);
	track_cpu = track;
	track_cpu.inherit = 0;
	track_cpu.enable_on_exec = 0;
	s->cpu_sideband = cpu_sideband(s);

	for (size_t ci = 0; ci < t->nr_cpus && !rc; ci++) {
		/* system-wide side band for cgroups: their tasks' comms and maps are needed too */
		if (t->kind == REC_TGT_CGROUP || t->kind == REC_TGT_SYSTEM || s->cpu_sideband)
			rc = open_one(s, &track_cpu, -1, "the side-band event", -1, ci, 0, fstate, msg, msg_sz);
		if (t->sideband_only && t->sideband_only[ci])
			continue;	/* a CPU outside -C: the side-band only */
		if (s->cpu_sideband) {
			opened_units = nr_units;
			continue;	/* nothing per task */
		}
		for (size_t u = 0; u < nr_units && !rc; u++) {
			pid_t pid = -1;
			bool gone = false;

			if (t->kind == REC_TGT_THREADS || t->kind == REC_TGT_WORKLOAD)
				pid = t->tids[u];
			else if (t->kind == REC_TGT_CGROUP)
				pid = t->cgroup_fds[u];
			if (t->kind == REC_TGT_THREADS || t->kind == REC_TGT_WORKLOAD) {
				rc = open_one(s, &track, -1, "the side-band event", pid, ci, 0,
					      fstate, msg, msg_sz);
				if (rc == 1) {
					rc = 0;
					continue;
				}
			}
			for (size_t i = 0; i < s->nr_evsels && !rc && !gone; i++) {
				if (s->evsels[i].ftrace || rec_counters_skip(&s->evsels[i]))
					continue;
				rc = open_one(s, &s->evsels[i].attr, (int)i, s->evsels[i].name, pid,
					      ci, flags, fstate, msg, msg_sz);
				if (rc == 1) {
					gone = true;
					rc = 0;
				}
			}
			if (!gone && ci == 0)
				opened_units++;
		}
	}
	free(fstate);
	if (!rc && (t->kind == REC_TGT_THREADS) && !opened_units)
		rc = rec_errf(msg, msg_sz, PP_ENOT_FOUND, "every thread to record has exited");
	return rc;
}

void rec_events_close(struct rec_session *s)
{
	for (size_t i = 0; i < s->tgt.nr_cpus && s->rings; i++)
		rec_ring_close(&s->rings[i]);
	for (size_t i = 0; i < s->nr_fds; i++)
		close(s->fds[i].fd);
	free(s->fds);
	s->fds = NULL;
	s->nr_fds = 0;
}
