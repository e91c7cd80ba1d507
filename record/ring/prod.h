/* SPDX-License-Identifier: MIT */
/*
 * prod.h - production recording: size limits, file rotation, the flight
 * recorder and its trigger.
 *
 * --max-size alone ends the recording when the capture reaches SIZE.  With
 * --rotate N the capture is a series FILE.0, FILE.1, ... of files of about
 * SIZE each, of which the newest N are kept.  With --flight-recorder SIZE
 * nothing is written while recording: the newest SIZE of compressed events
 * segments stay in memory and are written as FILE.0, FILE.1, ... on SIGUSR1,
 * at the end, or --post-trigger after the first --trigger event.
 *
 * Every file is self-contained: it starts with the host keys, the event
 * descriptions, a task table and the executable maps as of its first event,
 * the syscall table and the kernel symbols (copied from the first file's
 * KSYMS segments), and gets the symbol tables of the binaries its own samples
 * hit.  Not here: the writer (format/), the session's poll loop (session.c).
 */
#ifndef PP_RECORD_PROD_H
#define PP_RECORD_PROD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/ring/merge.h"
#include "record/session.h"

/* Set by SIGUSR1: dump the flight recorder, or start the next rotated file. */
extern volatile sig_atomic_t rec_dump;

/* A compressed segment kept in memory: header and payload, as the writer made them. */
struct rec_kseg {
	struct rec_kseg *next;
	uint32_t kind;
	uint64_t first_ns, last_ns;
	uint32_t nr_samples;
	size_t len;
	uint8_t data[];
};

/* A FIFO of kept segments. */
struct rec_ksegq {
	struct rec_kseg *head, *tail;
	size_t nr;
	uint64_t bytes;
};

struct rec_prod {
	/* what was asked */
	uint64_t max_size;		/* --max-size */
	unsigned rotate;		/* --rotate: files kept, 0 = no rotation */
	uint64_t flight_size;		/* --flight-recorder: bytes of events kept */
	uint64_t post_trigger_ns;	/* --post-trigger */
	const char *base;		/* FILE of -o */

	/* the trigger: evsels [trig_lo, trig_hi) are its events */
	int trig_lo, trig_hi;
	bool triggered;
	uint64_t trig_ns;		/* the trigger event's time (capture clock) */

	/* files */
	int fd;				/* rotation: the file being written, else -1 */
	uint64_t file_no;		/* its number (rotation), or the next dump's */
	uint64_t file_bytes;		/* bytes in it */
	uint64_t file_events;		/* bytes of events segments in it */
	uint64_t total_bytes;		/* written to every file */
	uint64_t raw_before;		/* raw bytes of the files closed before the current one */
	uint64_t nr_files;		/* files written (rotation) or dumps */
	bool switch_pending;		/* the file reached max_size: switch before the next record */
	bool checked;			/* the post-open checks are done */

	/* kept segments */
	bool keep_ksyms;		/* the first file: keep its KSYMS segments */
	struct rec_ksegq ksyms;		/* the kernel symbols, for every later file */
	struct rec_ksegq usyms;		/* flight: every symbol table written */
	struct rec_ksegq ring;		/* flight: events segments, newest last */
	struct rec_kseg *stats;		/* flight: the STATS segment at the end */
	uint64_t nr_dropped;		/* flight: events segments pushed out of the ring */
	uint64_t ring_max_bytes;	/* flight: high-water mark of ring.bytes */
	uint64_t post_bytes;		/* flight: bytes pushed since the trigger (never evicted) */
	uint64_t nr_post_cut;		/* flight: segments past a full post-trigger window */
	uint64_t nr_undigested;		/* flight: events segments into the ring since a digest */

	struct rec_tasks *tasks;	/* the task table, for each file's snapshot */
};

/**
 * rec_prod_setup() - check the production options and prepare them
 * @s: the session, options parsed, events added
 * @msg: receives one line on failure (record/err.h)
 * @msg_sz: its size
 *
 * Refuses with a reason the combinations that make no sense (rotation or
 * a flight recorder on a stream, --rotate without --max-size, ...).  Adds
 * the --trigger event.  Allocates s->prod only when a production option is
 * given.
 * Return: 0 or a negative code with @msg set.
 */
int rec_prod_setup(struct rec_session *s, char *msg, size_t msg_sz);

/**
 * rec_prod_open() - open the capture writer of a production mode
 *
 * Called instead of the plain open when s->prod is set.
 * Return: 0 or a negative code with @msg set.
 */
int rec_prod_open(struct rec_session *s, char *msg, size_t msg_sz);

/** rec_prod_emit_slow() - see rec_prod_emit(). */
int rec_prod_emit_slow(struct rec_session *s, const struct rec_mev *e, char *msg, size_t msg_sz);

/**
 * rec_prod_emit() - before a record is written: switch files, notice the trigger
 * Return: 0 or the writer's error.
 */
static inline int rec_prod_emit(struct rec_session *s, const struct rec_mev *e)
{
	const struct rec_prod *p = s->prod;

	if (!p || (!p->switch_pending && (e->evsel < p->trig_lo || e->evsel >= p->trig_hi)))
		return 0;
	return rec_prod_emit_slow(s, e, s->errmsg, sizeof(s->errmsg));
}

/**
 * rec_prod_poll() - once per poll round: SIGUSR1, the size limit, the trigger's end
 * Return: 0 to go on, 1 to end the recording, or a negative code (@msg set).
 */
int rec_prod_poll(struct rec_session *s, uint64_t now_ns, char *msg, size_t msg_sz);

/**
 * rec_prod_finish() - after the capture writer is closed: the flight
 * recorder's final dump; the byte count of every file into s->file_bytes
 * Return: 0 or a negative code (@msg set).
 */
int rec_prod_finish(struct rec_session *s, char *msg, size_t msg_sz);

/** rec_prod_bytes() - compressed bytes written so far, over every file. */
uint64_t rec_prod_bytes(const struct rec_session *s);

/** rec_prod_summary() - one line about the files written, for the summary. */
void rec_prod_summary(const struct rec_session *s, FILE *fp);

/** rec_prod_free() - free s->prod (after rec_session_release()); NULL is fine. */
void rec_prod_free(struct rec_session *s);

#endif
