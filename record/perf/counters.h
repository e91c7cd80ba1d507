/* SPDX-License-Identifier: MIT */
/*
 * counters.h - counting-mode events: opened, read, written as COUNTER records.
 *
 * Two ways, as perf-prof has them:
 * - timer reads (stat, percpu-stat, cpu-util, hwstat ...): per CPU the counting
 *   events are one group under the first, read at once each --count-period
 *   (one COUNTER record of the group: multiplexing moves them together); per
 *   thread (every CPU, inherited: no group read) each fd is read on its own.
 * - a sampling leader (hrcount, hrtimer): a cpu-clock event per CPU samples
 *   every --count-period with PERF_SAMPLE_READ of its group, the counting
 *   events; each sample is written (with its stack under -g) and followed by
 *   one COUNTER record of the whole group, read by the kernel in the same
 *   instant.  CPU targets only: a group read cannot be inherited.
 * Values are cumulative, with time_enabled/time_running so multiplexing shows.
 * Not here: the attrs of ordinary events (evsel.c), the record layout (format/).
 */
#ifndef PP_RECORD_COUNTERS_H
#define PP_RECORD_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

struct rec_session;
struct rec_mev;
struct rec_evsel;

/* A counting event selector that may be missing from this kernel starts with this. */
#define REC_COUNTER_OPTIONAL '?'

/**
 * rec_counters_add() - add the counting events of one selector list
 * @text: as for -e; with a leading '?' events this kernel does not have are
 *        left out (with -v, a line says which)
 * Return: 0 or a negative code with @msg set.
 */
int rec_counters_add(struct rec_session *s, const char *text, char *msg, size_t msg_sz);

/**
 * rec_counters_prepare() - before rec_evsels_finish(): the leader, the checks
 *
 * With a leader (--count-leader), adds its cpu-clock evsel.  Fails with one
 * line when counters are asked for without a period, or a leader with
 * per-thread targets.
 * Return: 0 or a negative code with @msg set.
 */
int rec_counters_prepare(struct rec_session *s, char *msg, size_t msg_sz);

/** rec_counters_attr() - in rec_evsels_finish(): @e's attr, when it counts or leads. */
void rec_counters_attr(const struct rec_session *s, struct rec_evsel *e);

/** rec_counters_skip() - whether rec_events_open() leaves @e to this file. */
bool rec_counters_skip(const struct rec_evsel *e);

/**
 * rec_counters_open() - after rec_events_open(): the counting fds (and leaders)
 * Return: 0 or a negative code with @msg set.
 */
int rec_counters_open(struct rec_session *s, char *msg, size_t msg_sz);

/** rec_counters_enable() - enable (@on) or disable the counting fds. */
void rec_counters_enable(struct rec_session *s, bool on);

/**
 * rec_counters_tick() - timer reads that are due at @now into the merge
 * Return: ms until the next one (for the poll timeout), -1 when none.
 */
int rec_counters_tick(struct rec_session *s, uint64_t now);

/** rec_counters_final() - one last reading of every timer-read fd at @now (at the end). */
void rec_counters_final(struct rec_session *s, uint64_t now);

/**
 * rec_counters_emit() - write a queued timer reading (REC_SYNTH_COUNTER) as a COUNTER
 * Return: 0 or the writer's error.
 */
int rec_counters_emit(struct rec_session *s, const struct rec_mev *e);

/**
 * rec_counters_group_read() - the COUNTER of a leader sample's group read
 * @read: the PERF_SAMPLE_READ part (PERF_FORMAT_GROUP|ID|TOTAL_TIME_*), @n bytes
 * Return: 0 or the writer's error; a malformed read is counted as bad and skipped.
 */
int rec_counters_group_read(struct rec_session *s, uint64_t time_ns, uint32_t cpu,
			    const uint64_t *read, uint64_t n);

/** rec_counters_release() - close the counting fds, free. */
void rec_counters_release(struct rec_session *s);

#endif
