/* SPDX-License-Identifier: MIT */
/*
 * evopen.h - the session's perf fds: open them per (unit, CPU), map the rings.
 *
 * For each target CPU, for each unit (the whole CPU, a thread, a cgroup) the
 * tracking event then every evsel not read from tracefs; the first fd on a
 * CPU owns that CPU's ring and the others are redirected into it.  Each fd's
 * kernel id goes into the session's id map (idmap.h).
 * Not here: the attrs (evsel.c), enabling the fds (record/session.c), the targets (record/targets.c).
 */
#ifndef PP_RECORD_EVOPEN_H
#define PP_RECORD_EVOPEN_H

#include <stdint.h>

struct rec_session;

/* One open perf fd. */
struct rec_fd {
	int fd;
	int evsel;			/* index, -1 for the tracking event */
	int cpu_idx;			/* index into target.cpus and rings */
	uint64_t kid;			/* the kernel's id for it */
};

/**
 * rec_events_open() - open every perf fd of the session, disabled, and map the rings
 *
 * Allocates s->rings, s->lost_cpu and s->exiting (one per target CPU) and
 * s->ids; sets s->cpu_sideband.  A kernel filter that is refused falls back
 * to the analyzer (PPF_EVF_USER_FILTER, with a warning).  A -p/-t thread that
 * exits meanwhile is skipped; that all of them did is an error.
 * Return: 0 or a negative code with @msg set.  What was opened stays in
 * s->fds and s->rings for rec_events_close().
 */
int rec_events_open(struct rec_session *s, char *msg, size_t msg_sz);

/**
 * rec_events_close() - unmap the rings, close and forget every perf fd
 *
 * s->rings, s->lost_cpu, s->exiting and s->ids stay allocated: rec_session_release()
 * frees them once the ring reader is stopped.
 */
void rec_events_close(struct rec_session *s);

#endif
