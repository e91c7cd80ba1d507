/* SPDX-License-Identifier: MIT */
/*
 * selfstat.h - pp-record's own costs, reported every interval with -v.
 *
 * One line on stderr per interval (--stat-interval, 1 s by default):
 * CPU used in the interval as a share of one CPU (the main thread, which
 * merges and compresses, and the ring reader thread apart), the resident
 * set size now, events and losses per second, and compressed bytes written
 * per second.  The peak RSS seen is kept for the summary.
 * Not here: the end-of-run summary (summary.c).
 */
#ifndef PP_RECORD_SELFSTAT_H
#define PP_RECORD_SELFSTAT_H

#include <stdint.h>
#include <stdio.h>

struct rec_session;

/**
 * rec_selfstat_start() - start reporting every @interval_ns into @fp
 *
 * Sets s->self; called once the session is open.
 */
void rec_selfstat_start(struct rec_session *s, uint64_t interval_ns, FILE *fp);

/** rec_selfstat_tick() - print a line when an interval has passed. */
void rec_selfstat_tick(struct rec_session *s, uint64_t now_ns);

/** rec_selfstat_rss() - resident set size of this process now, bytes (0 if unknown). */
uint64_t rec_selfstat_rss(void);

/** rec_selfstat_free() - free s->self (NULL is fine). */
void rec_selfstat_free(struct rec_session *s);

#endif
