/* SPDX-License-Identifier: MIT */
/*
 * tasks.h - the task table as of the last record written, for captures that
 * start in the middle of a recording (rotated files, flight-recorder dumps).
 *
 * Fed with the /proc snapshot at start, then the COMM, FORK and EXIT records
 * in the order they are written, it knows every task's pid, parent and comm
 * at that point.  Exited tasks are kept until a prune horizon passes their
 * exit, because their last events (the final sched_switch) may follow the
 * EXIT record.  Only pp-record's production modes allocate one.
 * Not here: maps (symbols.c keeps them), the snapshot itself (snapshot.c).
 */
#ifndef PP_RECORD_TASKS_H
#define PP_RECORD_TASKS_H

#include <stddef.h>
#include <stdint.h>

struct ppf_writer;
struct rec_tasks;

/** rec_tasks_new() - an empty table.  Return: the table (never NULL). */
struct rec_tasks *rec_tasks_new(void);
/** rec_tasks_free() - free it (NULL is fine). */
void rec_tasks_free(struct rec_tasks *t);

/** rec_tasks_set() - thread @tid of process @pid, child of @ppid, is called @comm. */
void rec_tasks_set(struct rec_tasks *t, uint32_t pid, uint32_t tid, uint32_t ppid,
		   const char *comm);
/** rec_tasks_comm() - @tid is now called @comm (a COMM record). */
void rec_tasks_comm(struct rec_tasks *t, uint32_t pid, uint32_t tid, const char *comm);
/** rec_tasks_fork() - @tid of @pid was created by @ptid of @ppid: it starts with its comm. */
void rec_tasks_fork(struct rec_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		    uint32_t ptid);
/** rec_tasks_exit() - @tid exited at @time_ns. */
void rec_tasks_exit(struct rec_tasks *t, uint32_t tid, uint64_t time_ns);
/** rec_tasks_prune() - forget the tasks that exited before @before_ns. */
void rec_tasks_prune(struct rec_tasks *t, uint64_t before_ns);
/** rec_tasks_count() - tasks in the table (exited ones not yet pruned included). */
size_t rec_tasks_count(const struct rec_tasks *t);

/**
 * rec_tasks_write() - a TASK record for each task in the table (META)
 *
 * The command line comes from /proc while the process lives, else it is the comm.
 * Return: 0 or the writer's error.
 */
int rec_tasks_write(const struct rec_tasks *t, struct ppf_writer *w);

#endif
