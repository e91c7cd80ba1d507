/* SPDX-License-Identifier: MIT */
/*
 * import/tracedat.h - a trace-cmd trace.dat (file versions 6 and 7) turned into a capture.
 *
 * The file is read through libtracecmd, the library trace-cmd itself uses: its event
 * formats become EVENT_DESC records with the tracefs format text, its saved cmdlines TASK
 * records, its kallsyms KSYM records, and the top instance's per-CPU buffers, merged in
 * time order by libtracecmd, SAMPLE records with the raw event (and LOST records where a
 * buffer page says events were dropped).  Not here: recognising the file and the
 * conversion's place in a session (import.c).
 */
#ifndef PP_ANALYZE_IMPORT_TRACEDAT_H
#define PP_ANALYZE_IMPORT_TRACEDAT_H

struct ppf_writer;
struct ana_import_info;

/**
 * ana_import_tracedat() - write the trace.dat at @path ("-": standard input) into @w
 * @path: the file
 * @w:    an open capture writer, nothing written yet
 * @info: filled with what the file was and lacked; on a failure @info->stopped says why
 *
 * A version 6 file cut short converts up to its last whole record and @info->stopped says
 * where it ended; a file whose headers libtracecmd cannot read is refused.
 * Return: 0, or a negative code (the reason in @info->stopped).
 */
int ana_import_tracedat(const char *path, struct ppf_writer *w, struct ana_import_info *info);

#endif
