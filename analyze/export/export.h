/* SPDX-License-Identifier: MIT */
/*
 * export/export.h - the export engine: writers that turn a replay into other tools' formats.
 *
 * An export is opened on an analyzer instance (its output file, its matched
 * selectors), fed the instance's events in time order, and finished at the end
 * of the replay.  Formats: "chrome" (trace event JSON for ui.perfetto.dev and
 * chrome://tracing), "perfetto" (protobuf trace), "pprof" (gzip profile.proto),
 * "jsonl" and "csv" (one row per event), "folded" (flame graph stacks).  The
 * streaming formats (chrome, perfetto, jsonl, csv) keep state for live tasks and
 * CPUs only; pprof and folded aggregate by distinct stack.  docs/exports.md
 * describes each format's layout.  Not here: option parsing (analyzers/export.c).
 */
#ifndef PP_ANALYZE_EXPORT_H
#define PP_ANALYZE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analyzer.h"

struct ana_export;

struct ana_export_cfg {
	const char *format;	/* one of ana_export_format_at()'s names */
	const char *value;	/* pprof, folded: "count", "period", an expression, NULL */
	bool stacks;		/* jsonl, csv: add a symbolized "stack" column */
	bool only_stacked;	/* pprof, folded: when some matched event type was recorded */
				/* with call stacks, skip the types that were not */
};

/**
 * ana_export_new() - start an export of @az's events to @az->out.fp
 * @az: the analyzer instance (after its selectors matched: ->init() time)
 * @cfg: what to write; copied (its strings must outlive the export)
 * @out: receives the export
 *
 * Writes the format's header.  Expressions of cfg->value are compiled here
 * (errors printed by the compiler).
 * Return: 0, or a negative code with a message behind ana_export_errmsg() (*@out is
 * set in every case and must be freed with ana_export_free()).
 */
int ana_export_new(struct pp_az *az, const struct ana_export_cfg *cfg, struct ana_export **out);

/** ana_export_event() - write (or account) one event; borrowed for the call only. */
void ana_export_event(struct ana_export *x, const struct pp_event *ev);

/** ana_export_task_exit() - thread @tid of @pid exited at @time_ns: close its state. */
void ana_export_task_exit(struct ana_export *x, uint32_t pid, uint32_t tid, uint64_t time_ns);

/**
 * ana_export_finish() - close open slices, write what was aggregated and the trailer
 * Return: 0, or a negative code (write error) with a message behind ana_export_errmsg().
 */
int ana_export_finish(struct ana_export *x);

/** ana_export_free() - free the export (not the output file); NULL is a no-op. */
void ana_export_free(struct ana_export *x);

/** ana_export_errmsg() - the last error of @x ("" when none); borrowed. */
const char *ana_export_errmsg(const struct ana_export *x);

/** ana_export_nr_events() - events written or accounted so far. */
uint64_t ana_export_nr_events(const struct ana_export *x);

/**
 * ana_export_format_at() - the @i-th format's name, or NULL past the last one
 * @summary: receives a one-line description (may be NULL)
 * @binary: receives whether the format is binary, not text (may be NULL)
 */
const char *ana_export_format_at(size_t i, const char **summary, bool *binary);

#endif
