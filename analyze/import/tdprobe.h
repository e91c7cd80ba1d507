/* SPDX-License-Identifier: MIT */
/*
 * import/tdprobe.h - a trace.dat's headers read once in a child process before pp-analyze
 * reads them itself.
 *
 * libtraceevent's format parser trusts the text it is given: a hostile event format makes
 * tep_parse_event() read through a NULL pointer or divide by zero while tracecmd_open_head()
 * runs (found by tests/fuzz/fuzz-tracedat).  tdguard.c checks sizes and counts, not the
 * text, and cannot know every construct the parser chokes on: so the headers are first
 * parsed in a forked child, and a file the child dies on is refused.  Not here: the reading
 * itself (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDPROBE_H
#define PP_ANALYZE_IMPORT_TDPROBE_H

#include <stdbool.h>
#include <stddef.h>

#define ANA_TD_ALARM_S 20	/* the longest a child may parse a file's headers */
#define ANA_TD_REFUSED 1	/* ana_td_probe(): libtracecmd refused the headers */

/**
 * ana_td_probe() - whether libtracecmd survives reading @path's headers
 * @path:  the trace.dat, already past ana_td_guard() (a /proc/self/fd/N path works: the
 *         child shares the descriptors)
 * @flags: the flags tracecmd_open_head() will be given
 * @why:   what went wrong, one line, when it returns nonzero
 * @whysz: its room
 *
 * The child calls tracecmd_open_head() with the fatal signals at their defaults, its output
 * thrown away and an alarm of 20 s.  A file libtracecmd refuses is not opened again by the
 * caller: a refusal can come after libtracecmd allocated what a hostile header asked for
 * (an option's size inside a compressed section: gigabytes), and its failing open does not
 * always give that back.  Return: 0 when libtracecmd read the headers, ANA_TD_REFUSED when
 * it refused them, PP_EBAD_RECORD with @why set when the child died by a signal, ran out of
 * time or exited otherwise than it does; -errno (@why set too) when no child could be made
 * or waited for.
 */
int ana_td_probe(const char *path, int flags, char *why, size_t whysz);

/**
 * ana_td_died() - what a child reading a trace.dat that ended by wait status @status
 * without finishing met, one line in @why: a crash or the alarm parsing the headers
 * (@began false) or reading the event data (@began true).  struct ana_importer's @died.
 */
void ana_td_died(int status, bool began, char *why, size_t whysz);

#endif
