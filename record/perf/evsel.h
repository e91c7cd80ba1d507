/* SPDX-License-Identifier: MIT */
/*
 * evsel.h - what pp-record opens: event selectors turned into perf_event_attr.
 *
 * One struct rec_evsel per recorded event (a glob gives one per match).  The
 * capture id of an evsel is its index + 1.  Sampling attributes are uniform
 * where the decoder relies on it: every event has sample_id_all and the
 * sample_id fields TID|TIME|CPU|IDENTIFIER, so every non-sample record ends
 * with the same 32-byte trailer and every sample starts with its id.
 * Tracepoints and probes carry no PERIOD (always 1).
 * Not here: opening the fds (evopen.c) or creating probes (probe/uprobe.c).
 */
#ifndef PP_RECORD_EVSEL_H
#define PP_RECORD_EVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct ppf_writer;
struct rec_session;
struct pp_selector;

/*
 * The sample_id fields every event carries.  No PERF_SAMPLE_CPU: every ring
 * belongs to one CPU, which is the CPU of all its records (8 bytes less per
 * record for the kernel to write and for us to copy).
 */
#define REC_SAMPLE_ID_ALL (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER)
/* Bytes of the sample_id trailer of a non-sample record: tid, time, identifier. */
#define REC_SAMPLE_ID_SZ 24

struct rec_evsel {
	uint32_t id;			/* capture id: index + 1 */
	uint32_t kind;			/* enum ppf_event_kind */
	uint32_t flags;			/* enum ppf_event_desc_flags */
	uint32_t tp_id;			/* tracefs id, 0 if none */
	char *name;			/* "sched:sched_switch", "cpu-clock" */
	char *selector;			/* the selector as given (one event of a list) */
	char *filter;			/* NULL when none */
	char *format;			/* tracefs format text, NULL when none */
	struct perf_event_attr attr;
	uint32_t time_off;		/* offset of TIME in a sample record */
	uint64_t nr_samples;		/* written to the capture */
	bool ftrace;			/* read from the tracefs instance, not perf (ftrace.h) */
	bool counting;			/* counted, not sampled (counters.h) */
	uint64_t own_period, own_freq;	/* an analyzer source's rate (-e 'profile/-F 99/'), 0: the session's */
	bool count_leader;		/* the cpu-clock that reads the counters' group (counters.h) */
};

/**
 * rec_evsels_add() - turn one -e argument into evsels appended to @s
 * @s: the session (tracefs, options, the evsel array)
 * @text: the -e argument (a comma list of selectors)
 * @msg: receives one line naming the bad part on failure (record/err.h)
 * @msg_sz: its size
 *
 * Resolves tracepoint globs against tracefs, creates uprobes, builds the
 * attrs.
 * Return: 0, PP_ESYNTAX / PP_EUNKNOWN_EVENT / PP_EUNKNOWN_ATTR / PP_ENO_PMU /
 * PP_ENOTSUP / PP_EAMBIGUOUS / PP_ENOT_FOUND or -errno.
 */
int rec_evsels_add(struct rec_session *s, const char *text, char *msg, size_t msg_sz);

/**
 * rec_evsels_finish() - last touches once all events are known
 *
 * Applies -g, -F/--period, exclude bits, clocks and inheritance to every attr.
 * Return: 0 or a negative code with s->errmsg set.
 */
int rec_evsels_finish(struct rec_session *s);

/**
 * rec_evsels_write_descs() - an EVENT_DESC record for each of @v[0..@n), into @w
 * Return: 0 or the writer's error.
 */
int rec_evsels_write_descs(const struct rec_evsel *v, size_t n, struct ppf_writer *w);

/** rec_evsel_release() - free what an evsel owns. */
void rec_evsel_release(struct rec_evsel *e);

/**
 * rec_tracking_attr() - the attr of the per-CPU side-band event
 * @s: the session (for --sideband, clock and inheritance)
 * @attr: filled in
 */
void rec_tracking_attr(const struct rec_session *s, struct perf_event_attr *attr);

/** rec_have_pmu() - whether a hardware PMU exists (/sys/bus/event_source/devices/cpu). */
bool rec_have_pmu(void);

#endif
