/* SPDX-License-Identifier: MIT */
/*
 * report/internal.h - the report engine's private state (see report.h).
 *
 * struct ana_rpt owns the child analyzer instances, the dispatch from event
 * types to them, the temporary directory, and the page as it is built: the
 * sections' HTML, and the data of the flame graphs and heatmaps, which the
 * page's script draws.
 */
#ifndef PP_ANALYZE_REPORT_INTERNAL_H
#define PP_ANALYZE_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/internal.h"
#include "analyze/report/report.h"
#include "common/buf.h"
#include "common/u64map.h"

/* A child analyzer instance run in the report's pass. */
struct ana_rpt_child {
	struct pp_az az;		/* the instance, as instance.c would build it */
	char **argv;			/* owned, NULL-terminated (strlists borrow them) */
	int argc;
	char *cmd;			/* "pp-analyze FILE ARGS" as shown */
	FILE *fp;			/* its output while it runs (a memory stream) */
	char *out;			/* its CSV once finished */
	size_t out_sz;
	bool live;			/* initialised and not released yet */
	int rc;				/* what its ->finish() returned */
};

/* Where one event type goes: one (child, match) per entry. */
struct rpt_disp {
	struct ana_rpt_child *c;
	struct ana_sel *sel;
};

struct rpt_disp_list {
	struct rpt_disp *v;
	size_t nr, cap;
};

struct ana_rpt {
	struct pp_az *az;		/* the report analyzer's instance */
	struct ana_session *s;
	char *tmpdir;
	struct pp_buf tmp_path;		/* ana_rpt_tmp_path()'s result */
	char *file_shown;		/* the capture's path as commands show it */
	struct ana_rpt_child **children;
	size_t nr_children, cap_children;
	struct pp_u64map disp;		/* type id -> struct rpt_disp_list * */
	uint32_t last_id;		/* a one-entry cache of disp */
	struct rpt_disp_list *last;
	uint64_t nr_late;		/* samples written after the reorder window */

	struct pp_buf body;		/* the sections */
	struct pp_buf nav;		/* their links */
	bool in_section;
	struct pp_buf flames;		/* JSON array items, one per flame graph */
	size_t nr_flames;
	struct pp_buf heatmaps;		/* JSON array items, one per heatmap */
	size_t nr_heatmaps;
};

/* html.c: escaping for each context of the page */
/**
 * rpt_html() - @s as HTML text or attribute value: & < > " ' as entities, controls and
 * bytes that are not UTF-8 as U+FFFD
 */
void rpt_html(struct pp_buf *b, const char *s);
/** rpt_json() - @s as a JSON string literal that can sit inside <script>: no raw '<', '>', '&'. */
void rpt_json(struct pp_buf *b, const char *s);
/** rpt_number() - whether @s is a number as tables print them ("12", "-1.5", "35.07%"). */
bool rpt_number(const char *s, double *v);

/* csv.c: the CSV children write (RFC 4180, as common/table.c writes it) */
struct rpt_csv {
	char **cols;
	size_t nr_cols;
	char **cells;			/* nr_rows * nr_cols, row by row */
	size_t nr_rows;
	size_t nr_cells, cap_cells;
};
/**
 * rpt_csv_parse() - the table of @text whose first column is @first_col (NULL: the
 * first table's); the last such table when there are several (-i intervals)
 */
void rpt_csv_parse(const char *text, size_t len, const char *first_col, struct rpt_csv *t);
/** rpt_csv_header() - start a table of one's own with the columns @cols (NULL-terminated). */
void rpt_csv_header(struct rpt_csv *t, const char *const *cols);
/** rpt_csv_addf() - the next cell, row by row (a row ends after nr_cols cells). */
void rpt_csv_addf(struct rpt_csv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rpt_csv_release(struct rpt_csv *t);

/**
 * rpt_table_html() - @t as a sortable HTML table: the rows of @order (@nr of them),
 * without the columns named in @drop (NULL-terminated, or NULL)
 */
void rpt_table_html(struct pp_buf *b, const struct rpt_csv *t, const size_t *order, size_t nr,
		    const char *const *drop);

#endif
