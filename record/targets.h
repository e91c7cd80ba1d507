/* SPDX-License-Identifier: MIT */
/*
 * targets.h - what a session records: CPUs, threads, cgroups or a command.
 *
 * The options (-a, -C, -p, -t, --cgroups, -- COMMAND) become one target kind
 * with its CPUs (one ring each) and its units (threads or cgroup fds); perf
 * fds are opened per (unit, CPU).  The thread list is read once, at the start.
 * Not here: opening the fds (perf/evopen.c) or starting the command (workload.c).
 */
#ifndef PP_RECORD_TARGETS_H
#define PP_RECORD_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rec_session;

enum rec_target_kind {
	REC_TGT_SYSTEM,			/* -a / -C: per-CPU events */
	REC_TGT_THREADS,		/* -p / -t: per (thread, CPU), inherit */
	REC_TGT_CGROUP,			/* --cgroups: per (cgroup, CPU) */
	REC_TGT_WORKLOAD,		/* -- COMMAND: per (child, CPU), inherit, enable_on_exec */
};

struct rec_target {
	enum rec_target_kind kind;
	int *cpus;			/* the CPUs events are opened on (one ring each) */
	size_t nr_cpus;
	bool *sideband_only;		/* per CPU: outside -C, the side-band event only (or NULL) */
	pid_t *tids;			/* THREADS: the threads; WORKLOAD: the child */
	size_t nr_tids;
	pid_t *pids;			/* THREADS: the processes/threads asked for (liveness) */
	size_t nr_pids;
	int *cgroup_fds;		/* CGROUP */
	size_t nr_cgroups;
};

/**
 * rec_target_init() - resolve s->tgt from the options in s->opts
 *
 * The online CPUs (or -C), then the kind: the workload when a command is
 * given without -a/-C, else the threads of -p/-t, the cgroups of --cgroups,
 * or the whole system.  System-wide and cgroup targets get the side-band
 * event on every online CPU (sideband_only marks the CPUs outside -C).
 * The workload's child is added later, by rec_target_add_tid().
 * Return: 0 or a negative code with @msg set; what was filled in before
 * a failure is freed by rec_target_release().
 */
int rec_target_init(struct rec_session *s, char *msg, size_t msg_sz);

/** rec_target_add_tid() - add thread @tid to @t's threads, unless it is there already. */
void rec_target_add_tid(struct rec_target *t, pid_t tid);

/**
 * rec_target_alive() - whether one of the -p/-t tasks still runs
 *
 * A zombie counts as gone (its parent may never reap it).
 * Return: true while at least one of s->tgt.pids is alive.
 */
bool rec_target_alive(const struct rec_session *s);

/** rec_target_release() - close the cgroup fds and free @t's arrays. */
void rec_target_release(struct rec_target *t);

#endif
