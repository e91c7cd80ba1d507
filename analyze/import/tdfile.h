/* SPDX-License-Identifier: MIT */
/*
 * import/tdfile.h - a trace.dat made ready for libtracecmd: standard input or a file cut
 * short copied into a memfd (libtracecmd reads a file, seeking), and its event data readied
 * without its truncation warning on stdout.  Not here: the reading (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDFILE_H
#define PP_ANALYZE_IMPORT_TDFILE_H

#include <sys/types.h>

struct tracecmd_input;

/**
 * ana_td_memfd() - a memfd holding what @in reads to its end, then zeros up to @total
 * bytes (a hole: no memory; 0: nothing added)
 * Return: the fd, or -errno.
 */
int ana_td_memfd(int in, off_t total);

/**
 * ana_td_init_data_quiet() - tracecmd_init_data() with stdout pointed at /dev/null: on a
 * file cut short libtracecmd 3.1.6 printf()s "File possibly truncated ..." to stdout, where
 * it would land in the middle of `pp-analyze FILE trace`'s output.  The text goes through
 * stdio's buffer, so it is flushed while stdout still points at /dev/null.
 * Return: tracecmd_init_data()'s.
 */
int ana_td_init_data_quiet(struct tracecmd_input *h);

#endif
