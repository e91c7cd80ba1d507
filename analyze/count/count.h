/* SPDX-License-Identifier: MIT */
/*
 * count.h - engine: counts per time slot per instance per event (hrcount, stat,
 * percpu-stat, cpu-util and the hardware-counter tables).
 *
 * An analyzer feeds it events: counter readings (ev->count, the count of the
 * period that ends at the reading) or ordinary samples (one each, or their
 * period), binned by time into slots of --period; -i groups slots into rounds.
 * A round is complete when an event of a later round arrives (readings come
 * in time order, each CPU's a period apart), or at the end; the analyzer's
 * round callback prints it.  Instances are CPUs, or threads for counters read
 * per thread; without --perins they are summed into one.
 * The slot of a reading: readings are made every recorded period P from the
 * counters' enable, so the k-th (k >= 1) covers ((k-1)P, kP]; its slot is
 * k-1, found from its time as round((t - t0) / P) - 1 with t0 the enable
 * (the first reading's time minus its enabled time).  An analysis period
 * that is a multiple of P merges readings; any other is refused.
 * Events binned (no readings) count from ana_grid_origin_ns(): the --time
 * start of a report, else the capture's first time, so that the ranges and
 * the parts of one capture share one grid.
 */
#ifndef PP_ANALYZE_COUNT_COUNT_H
#define PP_ANALYZE_COUNT_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyzer.h"
#include "common/buf.h"

/* One (instance, event) row: its slots in the current round. */
struct ana_cnt_row {
	uint32_t ins;			/* CPU or thread (UINT32_MAX: summed) */
	bool thread;			/* @ins is a thread (counters read per thread) */
	uint32_t ev;			/* event index (the analyzer's) */
	uint64_t *slot;			/* hist counts of the round */
	uint64_t sum;			/* of the round */
	uint64_t max;			/* largest slot of the round */
	uint64_t enabled, running;	/* counter times of the round (RUN%) */
	bool seen;			/* fed in this round */
};

struct ana_cnt;

/* Called for each complete round, rows sorted by (instance, event). */
typedef void (*ana_cnt_round_fn)(struct pp_az *az, struct ana_cnt *c, uint64_t round_end_ns);

struct ana_cnt_opts {
	uint64_t period_ns;		/* slot width: 0 = the recorded period (else -i) */
	uint64_t interval_ns;		/* round length (-i) */
	bool perins;
	ana_cnt_round_fn round;
};

/**
 * ana_cnt_new() - the engine for @az, or NULL with a one-line error printed
 * (an analysis period that is not a multiple of the recorded one).  Sets az->engine.
 */
struct ana_cnt *ana_cnt_new(struct pp_az *az, const struct ana_cnt_opts *o);
/** ana_cnt_free() - free it. */
void ana_cnt_free(struct ana_cnt *c);

/** ana_cnt_feed() - count @n of event @idx for @ev's instance in @ev's slot. */
void ana_cnt_feed(struct ana_cnt *c, const struct pp_event *ev, uint32_t idx, uint64_t n);
/** ana_cnt_finish() - the last round, when it holds anything. */
void ana_cnt_finish(struct ana_cnt *c);

/** ana_cnt_slots() - slots per round (-i / --period). */
unsigned ana_cnt_slots(const struct ana_cnt *c);
/** ana_cnt_period() - the slot width in ns. */
uint64_t ana_cnt_period(const struct ana_cnt *c);
/** ana_cnt_threads() - whether some instances are threads (counters read per thread). */
bool ana_cnt_threads(const struct ana_cnt *c);
/** ana_cnt_rows() - the rows of the round being reported, sorted; @nr set. */
struct ana_cnt_row *ana_cnt_rows(struct ana_cnt *c, size_t *nr);
/** ana_cnt_max() - the largest slot count ever seen (column widths grow with it). */
uint64_t ana_cnt_max(const struct ana_cnt *c);

/*
 * Mergeable state (keep.c, docs/state-format.md "the count engine"): with
 * --state-out (ana_state_recording()) complete rounds are kept instead of given
 * to the round callback; ana_cnt_finish() of an engine that read states loads
 * them back, round after round, through the callback, as if fed.
 */
/** ana_cnt_round() - the round being filled (the one a round callback reports). */
uint64_t ana_cnt_round(const struct ana_cnt *c);
/** ana_cnt_interval() - the round length in ns. */
uint64_t ana_cnt_interval(const struct ana_cnt *c);
/** ana_cnt_perins() - instances are kept apart (else summed into UINT32_MAX). */
bool ana_cnt_perins(const struct ana_cnt *c);
/* Whence slot 0's start (the state's origin byte). */
enum ana_cnt_origin {
	ANA_CNT_ORIGIN_NONE,		/* nothing fed yet */
	ANA_CNT_ORIGIN_ENABLE,		/* the counters' enable, from a reading (ranges differ by ns) */
	ANA_CNT_ORIGIN_GRID,		/* events binned: ana_grid_origin_ns(), one for the capture */
};
/** ana_cnt_origin() - where slot 0 starts, in *@t0. Return: whence (NONE: not known yet). */
enum ana_cnt_origin ana_cnt_origin(const struct ana_cnt *c, uint64_t *t0);
/** ana_cnt_set_origin() - set slot 0's start; @threads: some instances are threads. */
void ana_cnt_set_origin(struct ana_cnt *c, enum ana_cnt_origin kind, uint64_t t0, bool threads);
/**
 * ana_cnt_load() - add one row of round @round (its ana_cnt_slots() @slots and counter
 * times), reporting the rounds before it first as ana_cnt_feed() would; rounds come in
 * ascending order
 */
void ana_cnt_load(struct ana_cnt *c, uint64_t round, bool thread, uint32_t ins, uint32_t ev,
		  const uint64_t *slots, uint64_t enabled, uint64_t running);

/* Kept rounds: rows by (round, thread, instance, event), counts added. */
struct ana_cnt_keep;
/** ana_cnt_kept() - the engine's kept rounds. Return: borrowed. */
struct ana_cnt_keep *ana_cnt_kept(struct ana_cnt *c);
struct ana_cnt_keep *ana_cnt_keep_new(unsigned hist);
void ana_cnt_keep_free(struct ana_cnt_keep *k);
/** ana_cnt_keep_empty() - no round kept. */
bool ana_cnt_keep_empty(const struct ana_cnt_keep *k);
/** ana_cnt_keep_add() - add @row (its slots, counter times) to round @round. */
void ana_cnt_keep_add(struct ana_cnt_keep *k, uint64_t round, const struct ana_cnt_row *row);
/** ana_cnt_keep_load() - every kept row into @c with ana_cnt_load(), in ascending order. */
void ana_cnt_keep_load(struct ana_cnt_keep *k, struct ana_cnt *c);
/** ana_cnt_keep_write() - the rounds as a state section holds them. */
void ana_cnt_keep_write(const struct ana_cnt_keep *k, struct pp_buf *out);
/**
 * ana_cnt_keep_read() - add rounds written by ana_cnt_keep_write(), checked: rounds
 * ascending, events below @nr_events, a summed instance unless @perins
 * Return: 0 or the reader's error.
 */
int ana_cnt_keep_read(struct ana_cnt_keep *k, struct pp_wire *in, uint32_t nr_events,
		      bool perins);
/*
 * The state hooks of every analyzer on the engine (az->engine): slots, period,
 * interval and origin, then the kept rounds; a state of another period is refused.
 */
int ana_cnt_az_state_write(struct pp_az *az, struct pp_buf *out);
/* Their state_version: 2 since the origin byte says whence (1: binned from each range's start). */
#define ANA_CNT_STATE_VERSION 2
int ana_cnt_az_state_read(struct pp_az *az, struct pp_wire *in);
/* Ranges of one capture joined: slot 0 is where the first range's counters began. */
void ana_cnt_az_state_join(struct pp_az *az, unsigned before, unsigned after);

/* The names of an analyzer's events (its selector matches, by ana_sel.index) as reports show them. */
struct ana_cnt_names {
	size_t nr;
	char **full;			/* alias= or "sys:name" */
	char **name;			/* alias= or "name" (the packed layout) */
	int *width;			/* packed column widths; they only grow */
	bool packed;			/* the packed layout when a round has <= 5 slots */
	bool csv_head;			/* the CSV header was written */
};

/** ana_cnt_names_init() - @az's event names; @packed: use the packed layout where it fits. */
void ana_cnt_names_init(struct ana_cnt_names *n, struct pp_az *az, unsigned hist, bool packed);
void ana_cnt_names_release(struct ana_cnt_names *n);

/**
 * ana_cnt_print_hist() - perf-prof's hrcount/stat report of the round ending at @end_ns
 * (hist-print.c has the layouts), in az->out's format
 */
void ana_cnt_print_hist(struct pp_az *az, struct ana_cnt *c, struct ana_cnt_names *n,
			uint64_t end_ns);

/*
 * Ready-made hooks of hrcount and stat (hist-az.c): every -e event counted per
 * slot, perf-prof's report each round.  Their options are struct pp_count_opts
 * (common/plan.h); ANA_CNT_HIST_OPS wires all of them.
 */
struct ana_cnt_hist {			/* their az->priv; the fields are hist-az.c's */
	struct ana_cnt *c;
	struct ana_cnt_names names;
};
int ana_cnt_hist_init(struct pp_az *az);
void ana_cnt_hist_event(struct pp_az *az, const struct pp_event *ev);
int ana_cnt_hist_finish(struct pp_az *az);
void ana_cnt_hist_release(struct pp_az *az);


/*
 * Hardware-counter tables (hwstat, llcstat, tlbstat; hwtab.c): one row per CPU
 * each round, made from the counts of the analyzer's built-in events (by -e
 * position, readings only) and the RUN% of the first - the counter perf-prof
 * leads its group with - in perf-prof's text layout, as JSON lines or as CSV.
 * An analyzer describes its columns; hwtab.c computes and prints them.
 */

/* What a column shows, from the counts a and b of built-in events @a and @b. */
enum ana_hwtab_kind {
	ANA_HWTAB_COUNT,		/* a */
	ANA_HWTAB_RATIO,		/* a / b (0 when b is 0), "%.2f" */
	ANA_HWTAB_HIT,			/* (a - b) * 100 / a, 0 unless b < a: accesses, misses; "%.2f%%" */
	ANA_HWTAB_RUN,			/* time_running / time_enabled of event 0 in %, "%.2f%%" */
	ANA_HWTAB_TEXT,			/* @text, in the text layout only */
};

struct ana_hwtab_col {
	const char *sep;		/* the text before it, in the head and each row */
	const char *head;		/* its head, right-aligned to @width */
	int width;			/* of its text column ("%" included) */
	enum ana_hwtab_kind kind;
	unsigned a, b;			/* built-in events, by -e position */
	const char *key;		/* its JSON and CSV name (NULL: text only) */
	const char *text;		/* ANA_HWTAB_TEXT: the value, as is */
};

struct ana_hwtab_ops {
	const char *const *events;	/* the built-in events (NULL-terminated), in -e order */
	const char *head_lead;		/* text before the head's first column ("[CPU]" before it) */
	const char *row_lead;		/* text before a row's first column ("[NNN]" before it) */
	const struct ana_hwtab_col *cols;
	size_t nr_cols;
};

struct ana_hwtab {			/* a table analyzer's az->priv; the fields are hwtab.c's */
	const struct ana_hwtab_ops *ops;
	struct ana_cnt *c;
	unsigned nr_events;
	uint64_t *d;			/* nr_events counts of one row */
	uint64_t nr_readings;
	bool csv_head;
	struct pp_buf text;
};

/*
 * Ready-made hooks of the table analyzers: ana_hwtab_init() from the analyzer's
 * init with its table (@ops must outlive the analyzer); ANA_HWTAB_OPS() wires
 * it and the others.
 */
int ana_hwtab_init(struct pp_az *az, const struct ana_hwtab_ops *ops);
void ana_hwtab_event(struct pp_az *az, const struct pp_event *ev);
int ana_hwtab_finish(struct pp_az *az);
void ana_hwtab_release(struct pp_az *az);

/*
 * The state hooks of an analyzer on the engine, for its pp_analyzer_ops: the
 * engine's rounds (keep.c), ANA_CNT_STATE_VERSION.
 */
#define ANA_CNT_STATE_HOOKS						\
	.state_version = ANA_CNT_STATE_VERSION,				\
	.state_write = ana_cnt_az_state_write,				\
	.state_read = ana_cnt_az_state_read,				\
	.state_join = ana_cnt_az_state_join

/*
 * The hooks of an analyzer made of ready-made @kind (ana_cnt_hist or ana_hwtab),
 * for its pp_analyzer_ops: its priv (struct @kind), event, finish, release and
 * ANA_CNT_STATE_HOOKS; the analyzer gives init.
 */
#define ANA_CNT_HOOKS(kind)						\
	.priv_size = sizeof(struct kind),				\
	.event = kind##_event,						\
	.finish = kind##_finish,					\
	.release = kind##_release,					\
	ANA_CNT_STATE_HOOKS

/* All of hrcount's and stat's pp_analyzer_ops but their texts (and plans). */
#define ANA_CNT_HIST_OPS						\
	.help_attrs = "alias=./",					\
	.flags = PP_AZ_NEED_EVENTS | PP_AZ_COUNTERS,			\
	.init = ana_cnt_hist_init,					\
	ANA_CNT_HOOKS(ana_cnt_hist)

/* All of a table analyzer's pp_analyzer_ops but its texts: its @evs and @init_fn. */
#define ANA_HWTAB_OPS(evs, init_fn)					\
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,			\
	.builtin_events = evs,						\
	.init = init_fn,						\
	ANA_CNT_HOOKS(ana_hwtab)

#endif
