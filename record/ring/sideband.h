/* SPDX-License-Identifier: MIT */
/*
 * sideband.h - writing merged perf records to the capture.
 *
 * rec_emit() is the merge's output: samples become SAMPLE records (after
 * the symbols of the binaries they hit), COMM/FORK/EXIT/MMAP2 become task
 * history (and update the maps followed by symbols.c), LOST becomes LOST,
 * anything else is kept raw as SIDEBAND.  pp-record's own records (time-sync
 * pairs) travel through the merge with a private record type.
 * Not here: reading rings (ring.c) or ordering (merge.c).
 */
#ifndef PP_RECORD_SIDEBAND_H
#define PP_RECORD_SIDEBAND_H

#include <stdint.h>

#include "record/ring/merge.h"

struct rec_session;

/* Private record types (beyond any PERF_RECORD_*) queued by pp-record itself. */
#define REC_SYNTH_TIME_SYNC 0x7f01u
#define REC_SYNTH_FTRACE_PAGE 0x7f02u	/* drain FIFO: one tracefs ring-buffer page (ftrace.h) */
#define REC_SYNTH_FTRACE_EVENT 0x7f03u	/* merge: one event of such a page (ftrace.h) */
#define REC_SYNTH_COUNTER 0x7f04u	/* merge: a timer reading of a counting fd (counters.h) */

/* REC_SYNTH_TIME_SYNC body after the perf_event_header. */
struct rec_synth_sync {
	uint64_t mono_ns;
	uint64_t real_ns;
};

/**
 * rec_emit() - write one merged record (the rec_merge_emit_fn of a session)
 * @e: the queued record
 * @arg: the struct rec_session
 * Return: 0 or the writer's error (also kept in s->werr).
 */
int rec_emit(const struct rec_mev *e, void *arg);

/**
 * rec_record_time() - the timestamp of a perf record, from its sample_id trailer
 * @h: a non-sample record of an event with sample_id_all
 * @time_ns: receives the time
 * Return: true when the record is long enough to have one.
 */
bool rec_record_time(const struct perf_event_header *h, uint64_t *time_ns);

#endif
