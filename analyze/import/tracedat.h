/* SPDX-License-Identifier: MIT */
/*
 * import/tracedat.h - a trace-cmd trace.dat (file versions 6 and 7) turned into a capture.
 *
 * The file is read through libtracecmd, the library trace-cmd itself uses: its event
 * formats become EVENT_DESC records with the tracefs format text, its saved cmdlines TASK
 * records, its kallsyms KSYM records, and the top instance's per-CPU buffers, merged in
 * time order by libtracecmd, SAMPLE records with the raw event (and LOST records where a
 * buffer page says events were dropped).  Not here: recognising the file (import.c) or
 * what a capture's reader does with it.
 */
#ifndef PP_ANALYZE_IMPORT_TRACEDAT_H
#define PP_ANALYZE_IMPORT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ppf_writer;

/* What a trace.dat was, what it lacked and how far it read: one line each. */
struct ana_td_facts {
	char what[192];		/* "trace.dat version 7 (zstd), trace-cmd 3.1.6, clock local" */
	char lacks[256];	/* what a pp capture would have and the file does not */
	char skipped[256];	/* the instances other than the top one, "" if none */
	char stopped[256];	/* where a damaged file stopped reading, "" if read whole */
	uint64_t nr_events;	/* SAMPLE records written */
	uint64_t nr_lost;	/* events the buffers said were dropped */
	uint64_t nr_stacks;	/* kernel stacks attached (kernel_stack events) */
};

/**
 * ana_td_magic() - whether @head starts as a trace.dat does
 * @head: the first bytes of a file
 * @sz:   how many
 * Return: true for the trace-cmd magic ("\x17\x08\x44tracing").
 */
bool ana_td_magic(const void *head, size_t sz);

/**
 * ana_td_convert() - write the trace.dat at @path into the open writer @w
 * @path:   the file
 * @w:      a fresh capture writer (nothing written yet)
 * @facts:  filled with what the file was, lacked and where a damaged one stopped
 * @errmsg: the reason of a failure, one line
 * @errsz:  its size
 *
 * A file cut short or damaged in its event data converts up to the last record
 * libtracecmd could read, and @facts->stopped says where it stopped; a file whose
 * headers cannot be read is refused.
 * Return: 0, or a negative code with @errmsg set (the writer's own failures included).
 */
int ana_td_convert(const char *path, struct ppf_writer *w, struct ana_td_facts *facts,
		   char *errmsg, size_t errsz);

#endif
