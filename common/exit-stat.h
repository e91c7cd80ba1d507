/* SPDX-License-Identifier: MIT */
/*
 * exit-stat.h - VM exit latencies per (instance, ISA, exit reason), and the
 * table columns the exit analyzers share.
 *
 * kvm-exit and bpf-kvm-exit (perf-prof's kvm-exit and bpf:kvm_exit) both
 * keep one row per instance (0 without --perins; a thread, a CPU or a
 * process otherwise) and exit reason: a histogram of delays in ns and a few
 * sums of the analyzer's own (extra[]).  Rows print sorted as perf-prof's
 * latency_dist does: by instance, then by total delay (largest first), then
 * by ISA and reason.  A reset (per -i interval) keeps the rows and empties
 * them; rows without calls are not printed.  Not here: what an instance is,
 * or the columns after max(us) (%gsys, wait, rundelay): the analyzers.
 */
#ifndef PP_COMMON_EXIT_STAT_H
#define PP_COMMON_EXIT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exit-reasons.h"
#include "common/hist.h"
#include "common/table.h"
#include "common/u64map.h"

struct pp_buf;
struct pp_wire;

#define PP_EXIT_ROW_EXTRA 3

struct pp_exit_row {
	uint64_t ins;
	uint32_t isa, reason;
	struct pp_hist h;			/* delays in ns */
	uint64_t extra[PP_EXIT_ROW_EXTRA];	/* the analyzer's own sums */
	struct pp_exit_row *next;		/* another row of the same hash */
};

struct pp_exit_stat {
	struct pp_u64map rows;		/* hash of (ins, isa, reason) -> struct pp_exit_row * */
	struct pp_exit_row **list;	/* every row, in creation order */
	size_t nr;
};

/** pp_exit_stat_init() - an empty set of rows (a zeroed struct is one too). */
void pp_exit_stat_init(struct pp_exit_stat *st);
/** pp_exit_stat_release() - free the rows. */
void pp_exit_stat_release(struct pp_exit_stat *st);

/** pp_exit_stat_row() - the row of (@ins, @isa, @reason), made empty if new. Return: owned by @st. */
struct pp_exit_row *pp_exit_stat_row(struct pp_exit_stat *st, uint64_t ins, uint32_t isa,
				     uint32_t reason);

/**
 * pp_exit_stat_sorted() - the rows that have calls, in print order
 * @out: receives an array the caller frees (the rows stay @st's)
 * @all_vmx: set when every such row is VMX (the exit_reason column is 20 wide, else 32)
 * Return: the number of rows.
 */
size_t pp_exit_stat_sorted(const struct pp_exit_stat *st, struct pp_exit_row ***out,
			   bool *all_vmx);

/**
 * pp_exit_stat_put() - the rows as mergeable state (docs/state-format.md "kvm-exit"): their
 * number, then by (ins, isa, reason) each one's key, histogram (not empty) and the first
 * @nr_extra extra sums
 */
void pp_exit_stat_put(struct pp_buf *b, const struct pp_exit_stat *st, unsigned nr_extra);

/**
 * pp_exit_stat_read() - add rows written by pp_exit_stat_put() to @st: histograms merge,
 * extra sums add
 * Return: 0 or the reader's error (rows out of order, an empty histogram, a sum overflowing).
 */
int pp_exit_stat_read(struct pp_wire *r, struct pp_exit_stat *st, unsigned nr_extra);

/** pp_exit_stat_reset() - empty every row (histogram and extra sums), keeping them. */
void pp_exit_stat_reset(struct pp_exit_stat *st);

/**
 * pp_exit_table_cols() - append the columns exit_reason, calls, total(us), min(us),
 * avg(us), p99(us) and max(us) (JSON keys exit_reason, calls, total_us ... max_us)
 */
void pp_exit_table_cols(struct pp_table *t, bool all_vmx);

/** pp_exit_table_cells() - append @r's cells for the columns of pp_exit_table_cols(). */
void pp_exit_table_cells(struct pp_table *t, const struct pp_exit_row *r);

#endif
