/* SPDX-License-Identifier: MIT */
/*
 * table.h - report tables printed as aligned text, JSON or CSV.
 *
 * An analyzer declares columns, adds rows of cells, and prints; the same
 * table gives perf-prof's text layout (titles, a rule of dashes, aligned
 * columns), a JSON array of objects (numbers stay numbers) or CSV.  Widths
 * adapt to the content.  Not here: sorting (sort your rows before adding).
 */
#ifndef PP_COMMON_TABLE_H
#define PP_COMMON_TABLE_H

#include <stdint.h>
#include <stdio.h>

enum pp_table_format { PP_TABLE_TEXT, PP_TABLE_JSON, PP_TABLE_CSV };

enum pp_col_flags {
	PP_COL_LEFT = 1 << 0,	/* left-aligned (names); numbers are right-aligned */
	PP_COL_NORULE = 1 << 1,	/* no dashes under this column */
};

struct pp_table;

/** pp_table_new() - an empty table. Return: the caller owns it (pp_table_free). */
struct pp_table *pp_table_new(void);
void pp_table_free(struct pp_table *t);

/**
 * pp_table_col() - append a column
 * @title: shown in the header; the JSON key and CSV header too
 * @key: JSON/CSV name when it should differ from @title ("total_us"), or NULL
 * @flags: PP_COL_*
 * @width: minimum text width (0: fit the content)
 */
void pp_table_col(struct pp_table *t, const char *title, const char *key, unsigned flags, int width);

/** pp_table_row() - start a new row. */
void pp_table_row(struct pp_table *t);
/** pp_table_str() - a text cell. */
void pp_table_str(struct pp_table *t, const char *s);
/** pp_table_strf() - a formatted text cell. */
void pp_table_strf(struct pp_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** pp_table_u64() - an integer cell. */
void pp_table_u64(struct pp_table *t, uint64_t v);
/** pp_table_i64() - a signed integer cell. */
void pp_table_i64(struct pp_table *t, int64_t v);
/**
 * pp_table_num() - a number printed with @fmt ("%.3f", one conversion), right-aligned in
 * text and unquoted in JSON
 */
void pp_table_num(struct pp_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** pp_table_nr_rows() - rows added since the last reset. */
size_t pp_table_nr_rows(const struct pp_table *t);
/** pp_table_reset() - drop the rows, keep the columns (per-interval tables). */
void pp_table_reset(struct pp_table *t);

/**
 * pp_table_print() - print the table
 * @name: JSON: the table is printed as {"name": [rows]} when @name is given, else [rows]
 */
void pp_table_print(const struct pp_table *t, FILE *fp, enum pp_table_format f, const char *name);

#endif
