/* SPDX-License-Identifier: MIT */
/*
 * import.h - other tools' files read as captures: perf.data (perf record) and
 * trace.dat (trace-cmd record), recognised by their magic and converted into a
 * pp capture through the format writer, so that every command and analyzer
 * runs on them as on a capture.
 *
 * The table of importers (import.c) holds, for each format, its name, a test
 * of its first bytes and a converter.  A converter reads the foreign file (or
 * standard input, path "-") and writes capture records to a writer that is
 * already open: metadata first (KV, EVENT_DESC, SYSCALL, KSYM ...), then the
 * timed records in non-decreasing time order.  It fills a struct
 * ana_import_info: what the file was and what it lacked, which the converted
 * capture carries as "import.*" KV records (shown by `pp-analyze FILE info`)
 * and which is said once on stderr.
 * Not here: the capture format (format/), what a session does with a capture.
 */
#ifndef PP_ANALYZE_IMPORT_H
#define PP_ANALYZE_IMPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct ppf_writer;

#define ANA_IMPORT_MAX_LINES 16	/* "lacks" lines kept; more are counted, not kept */
#define ANA_IMPORT_LINE 200

/* What a foreign file was and what it lacked, one line each. */
struct ana_import_info {
	char tool[32];			/* "perf", "trace-cmd" */
	char version[64];		/* the tool's version, or the file format's */
	char host[128];			/* the recording machine's hostname */
	char release[128];		/* its kernel release */
	char arch[32];			/* its machine ("x86_64") */
	char cmdline[512];		/* the recording command */
	uint32_t nr_cpus;		/* CPUs online when it recorded, 0 if unknown */
	unsigned nr_lacks;		/* lines in @lacks (at most ANA_IMPORT_MAX_LINES) */
	char lacks[ANA_IMPORT_MAX_LINES][ANA_IMPORT_LINE];
	/* where the conversion stopped early (a truncated file): "" if it read everything */
	char stopped[ANA_IMPORT_LINE];
	uint64_t records;		/* foreign records read */
	uint64_t bytes;			/* foreign bytes read */
	bool quiet;			/* no progress on stderr */
	bool offline;			/* read nothing of this machine (symbols, formats): the fuzz target */
	bool in_child;			/* in a child of its own (impchild.h): no probe first */
	uint64_t total_bytes;		/* the file's size (0: a pipe), for the progress line */
	uint64_t start_ns, shown_ns;	/* progress: CLOCK_MONOTONIC of the start, the last line */
};

/**
 * ana_import_progress() - a converter has read @done bytes: refresh the progress line
 * (stderr, a terminal, after a second, at most every 200 ms; not @info->quiet)
 */
void ana_import_progress(struct ana_import_info *info, uint64_t done);

/**
 * ana_import_lack() - add a line to @info's "lacks" (printf format), once: a line
 * already there is not added again
 */
void ana_import_lack(struct ana_import_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * ana_import_fn - a converter
 * @path: the foreign file, or "-" for standard input (a pipe: read it once, in order)
 * @w: an open writer; the converter writes records only (never closes it)
 * @info: filled with what the file was and lacked
 * Return: 0 (also after a truncated file: @info->stopped says where), or a negative
 * code with the message in the writer's error or on stderr (pp_err) - see
 * ana_import_errmsg().
 */
typedef int ana_import_fn(const char *path, struct ppf_writer *w, struct ana_import_info *info);

/* One foreign format. */
struct ana_importer {
	const char *name;		/* "perf.data" */
	/* whether @head (the first @n bytes of the file, n <= 16) is this format */
	bool (*magic)(const uint8_t *head, size_t n);
	ana_import_fn *convert;		/* NULL: recognised but not built in */
	const char *missing;		/* @convert NULL: why ("trace.dat support not built") */
	/*
	 * its capture may be handed to a session in memory as it is written
	 * (ana_import_stream()): @convert runs on a thread of its own, and parses nothing
	 * with libtraceevent (not reentrant) once it has written its first segment
	 */
	bool in_memory;
	/*
	 * set: ana_import_stream() runs @convert in a forked child (impchild.h), and this
	 * says in @why how a child that ended without finishing (wait status @status) died;
	 * @began: it had handed over a piece of the capture
	 */
	void (*died)(int status, bool began, char *why, size_t whysz);
};

/** ana_importer_find() - the importer whose magic @head has (@n bytes). Return: static or NULL. */
const struct ana_importer *ana_importer_find(const uint8_t *head, size_t n);

/** The converters (analyze/import/<format>.c). */
ana_import_fn ana_import_perfdata;

/**
 * ana_import_sniff() - whether @path (or "-") is a foreign file, without consuming it
 * @path: a file, or "-": standard input, peeked when it is a pipe (tee(2)) or a file
 * @imp: receives the importer, NULL for anything else (a capture, an error)
 * Return: 0, or a negative code for a foreign format not built in (its message said
 * in @err).
 */
int ana_import_sniff(const char *path, const struct ana_importer **imp, char *err, size_t errsz);

/**
 * ana_import_open() - the capture a foreign file converts into, as a path to open
 * @path: the foreign file or "-"
 * @imp: its importer (ana_import_sniff())
 * @out: receives a path ppf_reader_open() takes: "/proc/self/fd/N" of an unlinked
 *       temporary capture (a file: converted once per process, each call opens the
 *       same), or of a pipe a converter thread streams into (standard input: once)
 * @outsz: room in @out
 * Return: 0, or a negative code with the message in @err.
 */
int ana_import_open(const char *path, const struct ana_importer *imp, char *out, size_t outsz,
		    char *err, size_t errsz);

struct ppf_segq;
struct ana_import_job;

/**
 * ana_import_stream() - @path converted on a thread (an importer with @died: in a forked
 * child, impchild.h) into a queue of segments a reader takes in memory (format/segq.h):
 * nothing compressed, no temporary file, at most a few segments in memory; for a session
 * that reads the capture once, front to back (no -j parts, no rewind).  Returns once the converter has written its first segment (or failed): from
 * then on it parses no event format (struct ana_importer's @in_memory).  Its lines
 * (ana_import_print()) are said when it ends, before the reader meets the end.
 * @path: a file (not "-"), of an importer with @in_memory
 * @q: receives the queue, for ppf_reader_open_segq()
 * @job: receives the conversion, for ana_import_job_end() once the reader is closed
 * Return: 0, or a negative code with the message in @err (as ana_import_open()'s).
 */
int ana_import_stream(const char *path, const struct ana_importer *imp, struct ppf_segq **q,
		      struct ana_import_job **job, char *err, size_t errsz);

/**
 * ana_import_job_end() - wait for @job's thread and free it; its reader closed before the
 * end, the conversion still runs to its end (its segments dropped), so that the lines it
 * says (what the file lacked, counted over all of it) are those of a whole conversion
 */
void ana_import_job_end(struct ana_import_job *job);

/**
 * ana_import_to() - convert @path with @imp into a capture written by @w (import -o)
 * @info: filled; printed on stderr by the caller
 * Return: 0 or a negative code with the message in @err.
 */
int ana_import_to(const char *path, const struct ana_importer *imp, struct ppf_writer *w,
		  struct ana_import_info *info, char *err, size_t errsz);

/** ana_import_print() - @info as lines on @fp, each starting "@path: " */
void ana_import_print(FILE *fp, const char *path, const struct ana_import_info *info);

#endif
