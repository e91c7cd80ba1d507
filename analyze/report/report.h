/* SPDX-License-Identifier: MIT */
/*
 * report/report.h - the report engine: other analyzers run inside one analyzer's pass,
 * their results laid out as one self-contained HTML page.
 *
 * A report is opened on an analyzer instance (analyzers/report.c) at ->init() time.
 * It starts child instances of other analyzers from command lines
 * ("task-state --perins"), exactly as pp-analyze would from its own command line,
 * except that each writes CSV into memory: the report's ->event() hands every event
 * to the children whose selectors match it, so all of them run in the one pass of
 * the capture, beside any other analyzer of the chain.  At ->finish() the children
 * finish, and their tables, the flame graphs and latency heatmaps they wrote to the
 * report's private temporary directory, and a summary of the capture become sections
 * of the page; each section names the pp-analyze command that prints the same numbers.
 *
 * The page (docs/analyzers/report.md) has its style and script inline and fetches
 * nothing (a Content-Security-Policy says so to the browser); text of the capture
 * (comm names, symbols, the recorded command) is escaped for its context: HTML text,
 * or JSON inside a script element, where '<' never appears raw.  Sizes are bounded:
 * tables keep their first or largest rows, flame graphs drop the frames below a share
 * and beyond a count, and the page says what it left out.
 * Not here: which sections a capture gets (analyzers/report.c).
 */
#ifndef PP_ANALYZE_REPORT_H
#define PP_ANALYZE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/analyzer.h"

struct ana_rpt;
struct ana_rpt_child;

/**
 * ana_rpt_new() - start a report on @az (at its ->init(): the capture's types are known)
 * Creates the private temporary directory (under $TMPDIR, else /tmp) and sets
 * @az->engine to the report, for the ready-made callbacks below.
 * Return: 0, or a negative code (message printed); free with ana_rpt_free().
 */
int ana_rpt_new(struct pp_az *az, struct ana_rpt **out);

/** ana_rpt_free() - remove the temporary directory, free the children and the page (NULL: none). */
void ana_rpt_free(struct ana_rpt *r);

/**
 * ana_rpt_tmp_path() - the path of file @name in the report's temporary directory
 * (a child's --flame-graph or --heatmap goes there)
 * Return: borrowed until ana_rpt_free().
 */
const char *ana_rpt_tmp_path(struct ana_rpt *r, const char *name);

/**
 * ana_rpt_child_add() - run analyzer @argv[0] with the options @argv[1..] (NULL-terminated)
 * in the report's pass, its output CSV kept for a table
 * @shown: the options as the page shows them (the temporary paths replaced), or NULL for @argv
 * @out: the child, or NULL when it could not start (then its reason is in the page's notes:
 *       bad options, or the capture lacks what it needs; the analyzer printed why)
 *
 * The strings are copied.  -C, -p, -t, -o, --format and -i are not for children.
 * Return: 0 or the negative code of the failure.
 */
int ana_rpt_child_add(struct ana_rpt *r, const char *const *argv, const char *const *shown,
		      struct ana_rpt_child **out);

/** ana_rpt_child_cmd() - "pp-analyze FILE ARGS...", shell-quoted, as shown. Borrowed. */
const char *ana_rpt_child_cmd(const struct ana_rpt_child *c);

/**
 * ana_rpt_type_sampled() - whether @t's records are samples an analyzer can count
 * (not counting-mode readings)
 */
bool ana_rpt_type_sampled(const struct ana_evtype *t);

/*
 * Ready-made callbacks for an analyzer whose ->init() called ana_rpt_new(): ->event
 * hands the event to the matching children, ->lost, ->task_exit and ->sideband to every
 * child, ->release frees the report.
 */
void ana_rpt_az_event(struct pp_az *az, const struct pp_event *ev);
void ana_rpt_az_lost(struct pp_az *az, const struct pp_lost_ev *l);
void ana_rpt_az_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns);
void ana_rpt_az_sideband(struct pp_az *az, const struct pp_sideband_ev *sb);
void ana_rpt_az_release(struct pp_az *az);

/**
 * ana_rpt_children_finish() - end of the replay: each child's ->finish(), then its
 * release (its files are complete after that); their outputs stay for the sections
 * Return: the number of children that failed (their sections say so).
 */
int ana_rpt_children_finish(struct ana_rpt *r);

/* --- The page, built section by section after ana_rpt_children_finish() ---------- */

/** ana_rpt_section() - start a section (the previous one ends): its anchor @id and @title. */
void ana_rpt_section(struct ana_rpt *r, const char *id, const char *title);

/** ana_rpt_text() - a paragraph of plain text (escaped) in the current section. */
void ana_rpt_text(struct ana_rpt *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** ana_rpt_command() - "reproduce with" and the command @cmd (escaped) in the current section. */
void ana_rpt_command(struct ana_rpt *r, const char *cmd);

/** ana_rpt_summary() - the capture section: host, command, time range, events per type, losses. */
void ana_rpt_summary(struct ana_rpt *r, size_t max_rows);

/* How a child's CSV becomes a table. */
struct ana_rpt_table_opts {
	const char *table;		/* the table with this first column (NULL: the first) */
	const char *caption;		/* above the table, or NULL */
	const char *rank_by;		/* keep the rows largest in it (NULL: the first) */
	const char *const *drop;	/* columns left out (NULL-terminated), or NULL */
	size_t max_rows;		/* 0: every row */
	bool show_cmd;			/* the child's command above the table */
};

/**
 * ana_rpt_table() - a table of @c's CSV output (o->table) as a sortable HTML table
 * Return: the number of rows the CSV had (0: an empty table, said in the page).
 */
size_t ana_rpt_table(struct ana_rpt *r, const struct ana_rpt_child *c,
		     const struct ana_rpt_table_opts *o);

/* How a folded-stacks file becomes an interactive flame graph. */
struct ana_rpt_flame_opts {
	double min_pct;			/* frames under this share (%) are left out */
	size_t max_frames;		/* and beyond this many (the largest kept) */
	const char *unit;		/* "samples" when NULL */
};

/**
 * ana_rpt_flame() - an interactive flame graph (click to zoom, search, reset) of the
 * folded stacks in @path ("a;b;c COUNT" lines, as profile --flame-graph writes them)
 * Return: the total weight (0: nothing to draw, said in the page).
 */
uint64_t ana_rpt_flame(struct ana_rpt *r, const char *path, const struct ana_rpt_flame_opts *o);

/**
 * ana_rpt_heatmap() - a latency heatmap (time across, log2 latency up) of the
 * "TIME_NS DELTA_NS" lines of the files @prefix-*.lat in the temporary directory
 * (what a latency analyzer's --heatmap PREFIX writes, one file per event pair)
 * Return: the number of latencies drawn.
 */
uint64_t ana_rpt_heatmap(struct ana_rpt *r, const char *prefix, const char *what);

/**
 * ana_rpt_write() - the whole page to @fp: head, style, the sections with their
 * navigation, the data of the graphs, the script
 * @title: the page's title; NULL: "pp report: HOST, CAPTURE"
 * Return: 0, or -errno of the write.
 */
int ana_rpt_write(struct ana_rpt *r, FILE *fp, const char *title);

#endif
