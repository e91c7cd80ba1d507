/* SPDX-License-Identifier: MIT */
/*
 * share.h - captures made fit to share: scrub (names replaced by stable hashes)
 * and slice (a smaller self-contained capture), the library part of
 * `pp-analyze FILE scrub|slice`.
 *
 * Both read a capture once through the session's reader and write a new one
 * with format/'s writer, record by record (ppf_write_record()), so the copy
 * is a capture like any other: every analyzer reads it.  What a capture holds
 * and what scrub replaces is told in docs/sharing.md.  Not here: options and
 * messages (cmd-scrub.c, cmd-slice.c).
 */
#ifndef PP_ANALYZE_SHARE_H
#define PP_ANALYZE_SHARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ana_session;

/* --- scrub ------------------------------------------------------------------ */

/* What scrub replaces, by class; --keep names classes to leave as they are. */
enum ana_scrub_class {
	ANA_SCRUB_COMM,		/* task names: COMM, TASK, tracepoint fields named *comm* */
	ANA_SCRUB_CMDLINE,	/* command lines: TASK cmdline, the cmdline KV (its paths, its command) */
	ANA_SCRUB_PATHS,	/* mmap and DSO paths, cgroup paths */
	ANA_SCRUB_HOST,		/* hostname, and KV values of keys scrub does not know */
	ANA_SCRUB_STRINGS,	/* user-space string fields of tracepoints (file names, uprobe strings) */
	ANA_SCRUB_FILTERS,	/* quoted literals in the recorded selectors and filters */
	ANA_SCRUB_NR_CLASSES,
};

struct ana_scrub_opts {
	const char *out_path;	/* the scrubbed capture */
	unsigned keep;		/* 1 << ANA_SCRUB_* of the classes kept */
	bool keep_system_paths;	/* paths under /usr /lib /bin ... kept (--keep system) */
	bool all_strings;	/* every string field of every tracepoint, not only user-space ones */
	const char *salt;	/* key of the hashes: the same salt gives the same names (NULL: random) */
	FILE *map;		/* when set: every original and its replacement, for the reporter only */
};

/* What one scrub did, for its report. */
struct ana_scrub_report {
	uint64_t nr_records;
	uint64_t nr_values[ANA_SCRUB_NR_CLASSES];	/* strings changed, by class */
	uint64_t nr_tokens;				/* distinct names replaced */
	char *where[ANA_SCRUB_NR_CLASSES];		/* "COMM, TASK, sched:sched_switch.prev_comm" */
	char *kept_fields;				/* string fields left as kernel text */
	char *kept_keys;				/* KV keys left (known to hold no names) */
};

/** ana_scrub_class_name() - "comm", "cmdline", "paths", "host", "strings", "filters". */
const char *ana_scrub_class_name(enum ana_scrub_class c);

/**
 * ana_scrub() - copy the capture of @s to @o->out_path with names replaced
 * @s: a session opened on the capture, nothing read yet
 * @o: what to keep, the salt
 * @rep: filled in (release with ana_scrub_report_release())
 *
 * Every name of a class not kept is replaced, token by token (a path's
 * components, a command line's words), by a hash of the same length made of
 * [a-z0-9]: the same token gives the same hash everywhere in the capture
 * (a comm in COMM records and in sched_switch fields alike), two tokens never
 * share one.  Numbers, options (-x, --xyz) and the names of kernel threads
 * stay.  Return: 0, or a negative code with the message in @err.
 */
int ana_scrub(struct ana_session *s, const struct ana_scrub_opts *o, struct ana_scrub_report *rep,
	      char *err, size_t errsz);
void ana_scrub_report_release(struct ana_scrub_report *rep);

/* --- slice ------------------------------------------------------------------ */

struct ana_slice_opts {
	const char *out_path;
	const char *time;	/* --time A,B as analyzers take it (NULL: whole capture) */
	int *pids;		/* --pid: processes (sorted, pp_parse_list()), NULL: all */
	size_t nr_pids;
	const char *const *events;	/* -e: event names or globs (sys:name, cpu-clock), NULL: all */
	size_t nr_events;
	bool all_ksyms;		/* every kernel symbol, not only those the kept samples need */
};

struct ana_slice_report {
	uint64_t nr_in, nr_out;			/* records read, written */
	uint64_t nr_samples_in, nr_samples_out;
	uint64_t start_ns, end_ns;		/* the range kept (0: open) */
	uint64_t nr_dsos_in, nr_dsos_out;
	uint64_t nr_ksyms_in, nr_ksyms_out;
	uint64_t bytes_out;
};

/**
 * ana_slice() - copy the part of the capture of @s that @o selects to @o->out_path
 *
 * Kept: the metadata (KV, the selected events' descriptions, the syscall table),
 * the whole task history (TASK, COMM, FORK, EXIT: names and parents of every
 * task a kept event may name), time syncs; the mmaps of the kept processes and
 * the user symbols of the binaries they map; the kernel symbols the kept
 * samples' addresses fall in (all of them with @all_ksyms or from a stream);
 * and, up to the
 * record where an analyzer given --time stops reading, the samples, counter
 * readings, losses and side-band records of the range that concern the kept
 * processes (a sample whose pid, tid or a *pid field names one of them).
 * Analyzers on the slice, given the same --time, -p and -e, report what they
 * report on the original.  Return: 0 or a negative code, message in @err.
 */
int ana_slice(struct ana_session *s, const struct ana_slice_opts *o, struct ana_slice_report *rep,
	      char *err, size_t errsz);

#endif
