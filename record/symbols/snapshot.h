/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - the start-time state of the machine, written to the capture.
 *
 * Host facts and topology as KV records, every task in /proc with its
 * executable file-backed maps, the syscall table of the build machine, and
 * a kallsyms snapshot.  Timed records (maps) carry the session's start time.
 * Not here: the history that follows (ring/sideband.c).
 */
#ifndef PP_RECORD_SNAPSHOT_H
#define PP_RECORD_SNAPSHOT_H

#include <stdint.h>

struct rec_session;

/**
 * rec_snapshot_host() - host KVs and CPU topology (META)
 * Return: 0 or the writer's error.
 */
int rec_snapshot_host(struct rec_session *s);

/**
 * rec_snapshot_early_tasks() - list every thread's name before the events are enabled
 *
 * Kept in the session for rec_snapshot_tasks(): a thread that runs when the
 * events are enabled but exits before the snapshot reaches it has no FORK
 * or COMM record, and its samples would have no name.
 */
void rec_snapshot_early_tasks(struct rec_session *s);

/**
 * rec_snapshot_tasks() - every task and every process's executable maps (META)
 *
 * The names first (quick), then the maps.  Threads of the early list that
 * are gone get a TASK record too.  Maps also go to the session's symbol
 * tracker.  Frees the early list.
 * Return: 0 or the writer's error.
 */
int rec_snapshot_tasks(struct rec_session *s);

/** rec_snapshot_free() - free the early list if rec_snapshot_tasks() did not run. */
void rec_snapshot_free(struct rec_session *s);

/** rec_snapshot_syscalls() - the syscall table (META).  Return: 0 or the writer's error. */
int rec_snapshot_syscalls(struct rec_session *s);

/**
 * rec_snapshot_kallsyms() - kernel text symbols, modules included (KSYMS)
 *
 * Nothing is written (and 0 returned) when the addresses are hidden.
 * Return: 0 or the writer's error.
 */
int rec_snapshot_kallsyms(struct rec_session *s);

#endif
