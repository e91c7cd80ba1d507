/* SPDX-License-Identifier: MIT */
/*
 * diff/diff.h - `pp-analyze diff`: two reports of one analyzer, key by key.
 *
 * A report is read back from the analyzer's own `--format json` output, so
 * every analyzer whose JSON holds tables (arrays of flat objects, which is
 * what common/table.c prints) can be compared with no code of its own:
 *
 *   tables.c  the JSON text of a report -> named tables of cells
 *   match.c   the rows of two tables matched by their key columns; per value
 *             column the delta, per row the largest relative change; sorted
 *   gate.c    --fail-if EXPR, the expression language with before.NAME
 *   print.c   the comparison as text (side by side), JSON or CSV
 *
 * Keys (docs/diff.md): a table's key columns are its text columns ("time"
 * excepted: when the report was printed) and its numeric identity columns
 * (key id pid tid thread cpu); every other numeric column is a value.
 * `--key A,B` chooses them instead.  Rows whose keys are equal on one side
 * are told apart by their order ("#2").  A row on one side only is new or
 * gone; its missing values count as 0 to deltas and --fail-if.
 * Not here: running the analyzer on each side (analyze/cmd-diff.c).
 */
#ifndef PP_ANALYZE_DIFF_H
#define PP_ANALYZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One cell: a JSON string or number as printed; text NULL when the row lacks it. */
struct ana_dcell {
	const char *text;
	double num;
	bool is_num;
};

/* One table of a report: a name, its columns (the JSON keys), rows of cells. */
struct ana_dtable {
	char *name;
	char **cols;
	size_t nr_cols;
	struct ana_dcell *cells;	/* row-major, nr_rows * nr_cols */
	size_t nr_rows;
};

/* The tables of one report, in the order they were printed. */
struct ana_dreport {
	struct ana_dtable *t;
	size_t nr;
	struct pp_json **docs;		/* the parsed documents the cells point into */
	size_t nr_docs;
};

/**
 * ana_dreport_parse() - the tables of a `--format json` report
 * @text: one or more JSON documents (an analyzer may print one per table, or one
 *        per -i interval), white space between them
 * @root: the name of a table that is the whole document (a bare array), or of the
 *        numbers found at the top of a document ("events" of top): the analyzer's name
 *
 * A document's arrays of objects are its tables, named by their member ("rows",
 * "syscalls"; "a.b" inside an object a); a table printed again replaces the
 * earlier one (the final report after interval reports).  Values that are
 * arrays or objects inside a row are not compared.
 * Return: 0, or PP_ESYNTAX with "offset N: ..." in @err.
 */
int ana_dreport_parse(struct ana_dreport *r, const char *text, size_t len, const char *root,
		      char *err, size_t errsz);
void ana_dreport_release(struct ana_dreport *r);

/** ana_dtable_find() - the table called @name, or NULL. Return: borrowed. */
const struct ana_dtable *ana_dreport_find(const struct ana_dreport *r, const char *name);

enum ana_drow_status { ANA_DROW_SAME, ANA_DROW_CHANGED, ANA_DROW_NEW, ANA_DROW_GONE };

/* A column of the comparison: the union of both sides' columns. */
struct ana_dcol {
	char *name;
	bool is_key;
	bool is_value;			/* numeric and not a key; else only shown as a key */
	bool is_num;			/* numbers only (a key: a number to --fail-if, else a string) */
	int col[2];			/* its index in the before [0] and after [1] table, or -1 */
	int decimals;			/* most digits after the point on either side */
};

/* One key of the comparison. */
struct ana_drow {
	char *key;			/* "syscall=read id=0", "#2" appended for a repeated key */
	size_t row[2];			/* the row in the before [0] and after [1] table, or SIZE_MAX */
	enum ana_drow_status status;
	double change;			/* largest |after - before| / |before| of its values; INFINITY
					 * for a value that was 0, new and gone keys */
	double sort;			/* what it is sorted by, largest first */
	bool tripped;			/* matched --fail-if */
};

/* The comparison of one table. */
struct ana_dtdiff {
	const char *name;
	const struct ana_dtable *side[2];	/* NULL: the table is on the other side only */
	struct ana_dcol *cols;
	size_t nr_cols;
	struct ana_drow *rows;		/* sorted: largest change first */
	size_t nr_rows;
	size_t nr[4];			/* rows by enum ana_drow_status */
	bool gated;			/* --fail-if applies to this table */
};

struct ana_diff {
	struct ana_dtdiff *t;
	size_t nr;
	size_t nr_tripped;
};

struct ana_diff_opts {
	const char *keys;		/* --key A,B: the key columns, or NULL for the default */
	const char *sort;		/* --sort COL: by |delta COL| instead of the relative change */
	const char *columns;		/* --columns A,B: the value columns shown, or NULL: all */
};

/**
 * ana_diff_compute() - compare two reports table by table (tables of either side, in
 * the order they appear in @before then @after)
 * Return: 0, or PP_EUSAGE with a message in @err: a --key, --sort or --columns
 * column that no table has.
 */
int ana_diff_compute(struct ana_diff *d, const struct ana_dreport *before,
		     const struct ana_dreport *after, const struct ana_diff_opts *o, char *err,
		     size_t errsz);
void ana_diff_release(struct ana_diff *d);

/**
 * ana_dvalue() - value column @c of row @r on @side (0 before, 1 after)
 * Return: true and the number in *@v, or false (and 0) when that side has none.
 */
bool ana_dvalue(const struct ana_dtdiff *t, const struct ana_drow *r, const struct ana_dcol *c,
		int side, double *v);

/** ana_dcell_of() - the cell of column @c of row @r on @side, or NULL. Return: borrowed. */
const struct ana_dcell *ana_dcell_of(const struct ana_dtdiff *t, const struct ana_drow *r,
				     const struct ana_dcol *c, int side);

/**
 * ana_diff_gate() - --fail-if @expr over every key of every table: sets ->tripped and
 * d->nr_tripped.  The expression is compiled for each table; one that names a column a
 * table lacks skips that table, but must fit at least one.
 * Return: 0, or the compile error's code after printing it with a caret under the bad
 * part (pp_parse_error_print).
 */
int ana_diff_gate(struct ana_diff *d, const char *expr);

enum ana_diff_format { ANA_DIFF_TEXT, ANA_DIFF_JSON, ANA_DIFF_CSV };

struct ana_diff_head {
	const char *analyzer, *before, *after;	/* what is compared, for the header */
	const char *fail_if;			/* or NULL */
	size_t limit;				/* text: rows per table (0: all) */
	bool all;				/* text: show unchanged keys too */
};

/** ana_diff_print() - the comparison in @f to @fp. */
void ana_diff_print(const struct ana_diff *d, const struct ana_diff_head *h,
		    enum ana_diff_format f, FILE *fp);

/** ana_diff_tripped_print() - "fail-if: TABLE: KEY" for each tripped key, to @fp. */
void ana_diff_tripped_print(const struct ana_diff *d, FILE *fp);

#endif
