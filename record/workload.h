/* SPDX-License-Identifier: MIT */
/*
 * workload.h - the `-- COMMAND ARGS` child: forked early, held until the
 * events are armed, then released to exec.
 *
 * The child blocks reading a pipe; the events are opened on its pid with
 * enable_on_exec and inherit, so counting starts at its first instruction
 * and follows its children.  An exec failure comes back through a
 * close-on-exec pipe as an errno.
 * Not here: the events themselves (perf/evopen.c).
 */
#ifndef PP_RECORD_WORKLOAD_H
#define PP_RECORD_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct rec_workload {
	pid_t pid;			/* 0 when there is none */
	int go_fd;			/* write end: one byte releases the child */
	int err_fd;			/* read end: an errno if exec failed, EOF if it worked */
	int status;			/* waitpid() status once exited */
	bool exited;
	bool started;
};

/**
 * rec_workload_prepare() - fork the child, which waits for rec_workload_start()
 * @wl: zeroed by the caller
 * @argv: the command, NULL-terminated
 * @stdout_fd: the child's standard output (-1: ours); a capture streamed to our
 *	standard output must not receive the command's text
 * Return: 0 or -errno.
 */
int rec_workload_prepare(struct rec_workload *wl, const char *const *argv, int stdout_fd);

/**
 * rec_workload_start() - let the child exec
 * Return: 0, or the -errno of a failed exec (the child is reaped then).
 */
int rec_workload_start(struct rec_workload *wl);

/** rec_workload_reap() - non-blocking check; true once the child has exited. */
bool rec_workload_reap(struct rec_workload *wl);

/**
 * rec_workload_stop() - end the child: SIGTERM if it still runs (after a
 * short grace, SIGKILL), then wait for it.  No-op without a child.
 */
void rec_workload_stop(struct rec_workload *wl);

/** rec_workload_exit_code() - the shell-style status: code, or 128 + signal. */
int rec_workload_exit_code(const struct rec_workload *wl);

/** rec_workload_find_dup() - the command's path through $PATH, or NULL if not found. */
char *rec_workload_find_dup(const char *cmd);

#endif
