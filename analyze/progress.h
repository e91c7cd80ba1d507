/* SPDX-License-Identifier: MIT */
/*
 * progress.h - the replay's progress line on a terminal.
 *
 * A replay of a capture file that takes more than a second shows, on stderr
 * when stderr is a terminal, one line updated in place: bytes read of the
 * file, events read, events per second and the time left (from the file
 * size), cleared at the end.  Nothing when stderr is not a terminal, with -q,
 * for a stream, or when the report itself streams to the same terminal (its
 * lines would tear the progress line).  The cost on the hot path is a counter
 * and a compare per record; the clock is read every ANA_PROGRESS_EVERY
 * records.  Not here: the replay loop (replay.c).
 */
#ifndef PP_ANALYZE_PROGRESS_H
#define PP_ANALYZE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct ana_session;

/* Records between two looks at the clock: about a millisecond of replay. */
#define ANA_PROGRESS_EVERY 4096

struct ana_progress {
	uint64_t nr_records;		/* records seen */
	uint64_t next_check;		/* nr_records at which to look at the clock; never if off */
	uint64_t file_sz;		/* the capture's size, 0 if unknown */
	uint64_t start_ns, shown_ns;	/* CLOCK_MONOTONIC: the replay's start, the last line */
	int fd;				/* where the line goes (stderr) */
	bool shown;			/* a line is on the terminal */
};

/**
 * ana_progress_start() - decide whether @s's replay shows progress, and start the clock
 * @p: the state, owned by the caller (the replay loop)
 * @s: the session, its analyzers initialised
 */
void ana_progress_start(struct ana_progress *p, struct ana_session *s);

/** ana_progress_update() - look at the clock; print or refresh the line when due. */
void ana_progress_update(struct ana_progress *p, struct ana_session *s);

/** ana_progress_record() - one record read: the hot path's part. */
static inline void ana_progress_record(struct ana_progress *p, struct ana_session *s)
{
	if (++p->nr_records >= p->next_check)
		ana_progress_update(p, s);
}

/** ana_progress_end() - clear the line, if one was shown; nothing more is printed after. */
void ana_progress_end(struct ana_progress *p);

#endif
