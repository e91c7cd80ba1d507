/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the end-of-run report on stderr and the STATS records.
 */
#ifndef PP_RECORD_SUMMARY_H
#define PP_RECORD_SUMMARY_H

#include <stdio.h>

struct rec_session;

/**
 * rec_summary_write_stats() - the capture's STATS segment: per-event counts,
 * losses (total and per CPU), late records, sizes, pp-record's own costs
 * Return: 0 or the writer's error.
 */
int rec_summary_write_stats(struct rec_session *s);

/**
 * rec_summary_print() - events per name, lost (per CPU when verbose), raw and
 * compressed bytes, ratio, duration, CPU time and peak RSS of pp-record
 */
void rec_summary_print(const struct rec_session *s, FILE *fp);

#endif
