/* SPDX-License-Identifier: MIT */
/*
 * ftrace.h - tracepoints read from a private tracefs instance instead of perf rings.
 *
 * The kernel's perf output path costs the traced task more per event than the
 * ftrace ring buffer does (about 3x for a syscall storm on the test VM), and
 * that cost is paid in the workload's own context.  So tracepoints without a
 * call chain are enabled in an instance of our own (instances/pp-PID) and
 * read from its per-CPU trace_pipe_raw files, while perf keeps the rest:
 * samples, stacks, probes and the side band (COMM/FORK/EXIT/MMAP).
 *
 * The instance uses trace_clock "local" (cheaper per event than "mono" on
 * some VMs), and its times are mapped to CLOCK_MONOTONIC, the perf events'
 * clock, as pages are cut into events (clocksync.h), so both sources merge
 * on one time line; "mono" itself where the mapping cannot be made.  The drain
 * thread copies whole ring-buffer pages into the CPU's FIFO (ring/drain.c); the
 * main thread cuts them into events (rec_ftrace_page()), each queued for the
 * merge as a REC_SYNTH_FTRACE_EVENT record, and written as a SAMPLE whose
 * raw data is the same tracepoint record perf's PERF_SAMPLE_RAW carries.
 * The thread id is the record's common_pid; the process id comes from a
 * table fed with the task snapshot and the FORK records (/proc for tasks
 * neither has seen).  Losses come from the pages' missed-events flags and,
 * at the end, from the per-CPU stats files.
 *
 * The instance is removed on every exit path; one left by a killed
 * pp-record is removed at the next start (rec_ftrace_clean_stale()).
 * Not here: the page layout's decoding is ftrace-page.c (pure, unit-tested).
 */
#ifndef PP_RECORD_FTRACE_H
#define PP_RECORD_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/ring/merge.h"

struct rec_session;
struct rec_tracefs;
struct rec_ftrace;

/* A REC_SYNTH_FTRACE_EVENT record: this after the perf_event_header, then the raw data. */
struct rec_ftrace_ev {
	uint32_t tid;			/* common_pid */
	uint32_t raw_sz;
};

/**
 * rec_ftrace_setup() - move eligible tracepoints of @s to a tracefs instance
 *
 * Eligible: tracepoints without a call chain, for system-wide, -C, -p, -t or
 * workload targets (not cgroups).  Creates and configures the instance,
 * applies filters (a refused filter is left to the analyzer, as with perf),
 * enables the events (tracing stays off until rec_ftrace_enable()) and opens
 * the per-CPU trace_pipe_raw files.  With nothing eligible, or when the
 * instance cannot be made, every tracepoint stays on perf (said with -v).
 * Return: 0 or a negative code with s->errmsg set.
 */
int rec_ftrace_setup(struct rec_session *s);

/** rec_ftrace_enable() - start (@on) or stop tracing in the instance. */
void rec_ftrace_enable(struct rec_session *s, bool on);

/** rec_ftrace_fds() - the trace_pipe_raw fd of each target CPU (-1: none), or NULL. */
const int *rec_ftrace_fds(const struct rec_session *s);

/** rec_ftrace_tick() - a perf-clock to CLOCK_MONOTONIC point if one is due (clocksync.h). */
void rec_ftrace_tick(struct rec_session *s, uint64_t now_ns);

/**
 * rec_ftrace_drain_offset() - CLOCK_MONOTONIC minus the instance's clock,
 * kept current by rec_ftrace_tick(), for the drain thread; NULL when the
 * instance runs on CLOCK_MONOTONIC itself.
 */
const int64_t *rec_ftrace_drain_offset(const struct rec_session *s);

/** rec_ftrace_page_size() - bytes of one ring-buffer page (sub-buffer). */
size_t rec_ftrace_page_size(const struct rec_session *s);

/**
 * rec_ftrace_page() - queue the events of one page read from CPU index @ci
 * @s: the session (merge queue nr_cpus + 1 + @ci)
 * @ci: index into s->tgt.cpus
 * @page: the page as read from trace_pipe_raw
 * @len: its length
 */
void rec_ftrace_page(struct rec_session *s, size_t ci, const uint8_t *page, size_t len);

/** rec_ftrace_buffer_size() - bytes of the instance's buffer per CPU (2 x -m pages). */
size_t rec_ftrace_buffer_size(const struct rec_session *s);

/**
 * rec_ftrace_emit() - write a queued REC_SYNTH_FTRACE_EVENT as a SAMPLE
 * Return: 0 or the writer's error.
 */
int rec_ftrace_emit(struct rec_session *s, const struct rec_mev *e);

/* perf_event_header.misc of the LOST records this source queues */
#define REC_LOST_MISC_FTRACE 0x4000u

/** rec_ftrace_lost_emitted() - @n events of CPU index @ci's LOST record were written. */
void rec_ftrace_lost_emitted(struct rec_session *s, size_t ci, uint64_t n);

/** rec_ftrace_lost_on() - events of this source's LOST records written for CPU index @ci. */
uint64_t rec_ftrace_lost_on(const struct rec_session *s, size_t ci);

/** rec_ftrace_exec() - process @pid exec'ed (the workload's exec starts its events). */
void rec_ftrace_exec(struct rec_session *s, uint32_t pid);

/** rec_ftrace_task() - thread @tid belongs to process @pid (the task snapshot). */
void rec_ftrace_task(struct rec_session *s, uint32_t pid, uint32_t tid);

/** rec_ftrace_fork() - thread @tid of process @pid was created by thread @ptid (a FORK record). */
void rec_ftrace_fork(struct rec_session *s, uint32_t pid, uint32_t tid, uint32_t ptid);

/**
 * rec_ftrace_losses() - queue LOST records for drops the pages did not announce
 * @s: the session; called once, after the last pages were read
 */
void rec_ftrace_losses(struct rec_session *s);

/**
 * rec_ftrace_write_stats() - this source's counters as rec.ftrace_* STAT records
 * Return: 0 (also without the source) or the writer's error.
 */
int rec_ftrace_write_stats(struct rec_session *s);

/** rec_ftrace_release() - close the files and remove the instance (safe when unused). */
void rec_ftrace_release(struct rec_session *s);

/**
 * rec_ftrace_clean_stale() - remove instances left by pp-records that no longer run
 * Return: the number removed.
 */
int rec_ftrace_clean_stale(const struct rec_tracefs *t);

#endif
