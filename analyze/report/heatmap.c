/* SPDX-License-Identifier: MIT */
/*
 * heatmap.c - a latency heatmap section from the "TIME_NS DELTA_NS" lines a latency
 * analyzer writes with --heatmap PREFIX (one PREFIX-EVENT1-EVENT2.lat file a pair).
 *
 * Columns are HEATMAP_COLS equal slices of the capture's time range, rows the powers
 * of two of the latency (row k: 2^k <= delta < 2^(k+1) ns), only the rows from the
 * smallest to the largest latency seen.  The page's script draws it on a canvas
 * and tells the cell under the pointer; the data is the counts, row by row from
 * the lowest ("counts"), with the first row's power ("r0").
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/log.h"
#include "common/units.h"

#define HEATMAP_COLS 120
#define HEATMAP_ROWS 64

struct heat {
	uint64_t t0, span;
	uint64_t n[HEATMAP_ROWS][HEATMAP_COLS];
	uint64_t total;
};

static unsigned log2_row(uint64_t delta)
{
	return delta ? 63 - (unsigned)__builtin_clzll(delta) : 0;
}

static void heat_file(struct heat *h, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *end;
	size_t cap = 0;

	if (!fp) {
		pp_warn("report: cannot read '%s'", path);
		return;
	}
	while (getline(&line, &cap, fp) > 0) {
		uint64_t t = strtoull(line, &end, 10);
		uint64_t delta = strtoull(end, NULL, 10);
		uint64_t col = t <= h->t0 ? 0 : (t - h->t0) * HEATMAP_COLS / h->span;

		if (col >= HEATMAP_COLS)
			col = HEATMAP_COLS - 1;
		h->n[log2_row(delta)][col]++;
		h->total++;
	}
	free(line);
	fclose(fp);
}

static bool is_pair_file(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix), nl = strlen(name);

	return nl > pl + 5 && !strncmp(name, prefix, pl) && name[pl] == '-' &&
	       !strcmp(name + nl - 4, ".lat");
}

/* The files in name order, so that the page does not depend on the directory's order. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void heat_read(struct ana_rpt *r, struct heat *h, const char *prefix)
{
	DIR *d = opendir(r->tmpdir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0;

	while (d && (de = readdir(d))) {
		if (!is_pair_file(de->d_name, prefix))
			continue;
		names = pp_xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = pp_xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		heat_file(h, ana_rpt_tmp_path(r, names[i]));
		free(names[i]);
	}
	free(names);
}

uint64_t ana_rpt_heatmap(struct ana_rpt *r, const char *prefix, const char *what)
{
	struct heat *h = pp_xcalloc(1, sizeof(*h));
	unsigned lo = HEATMAP_ROWS, hi = 0;
	uint64_t total;
	char a[32], b[32], e[32];
	uint64_t col_ns;

	h->t0 = ana_capture_start_ns(r->s);
	h->span = ana_capture_end_ns(r->s) > h->t0 ? ana_capture_end_ns(r->s) - h->t0 + 1 : 1;
	heat_read(r, h, prefix);
	total = h->total;
	if (!total) {
		ana_rpt_text(r, "no %s to draw", what);
		free(h);
		return 0;
	}
	for (unsigned k = 0; k < HEATMAP_ROWS; k++)
		for (unsigned c = 0; c < HEATMAP_COLS; c++)
			if (h->n[k][c]) {
				lo = k < lo ? k : lo;
				hi = k;
			}
	if (r->nr_heatmaps++)
		pp_buf_addch(&r->heatmaps, ',');
	pp_buf_adds(&r->heatmaps, "{\"what\":");
	rpt_json(&r->heatmaps, what);
	pp_buf_addf(&r->heatmaps, ",\"span\":%llu,\"cols\":%d,\"r0\":%u,\"rows\":%u,\"total\":%llu,"
		    "\"counts\":[", (unsigned long long)h->span, HEATMAP_COLS, lo, hi - lo + 1,
		    (unsigned long long)total);
	for (unsigned k = lo; k <= hi; k++)
		for (unsigned c = 0; c < HEATMAP_COLS; c++)
			pp_buf_addf(&r->heatmaps, "%s%llu", k == lo && !c ? "" : ",",
				    (unsigned long long)h->n[k][c]);
	pp_buf_adds(&r->heatmaps, "]}");
	col_ns = h->span / HEATMAP_COLS ? h->span / HEATMAP_COLS : 1;
	pp_buf_addf(&r->body, "<div class=\"heatmap\" data-heatmap=\"%zu\"><canvas></canvas>"
		    "<div class=\"hinfo\">&nbsp;</div></div>\n", r->nr_heatmaps - 1);
	ana_rpt_text(r, "%llu %s: time across (%d columns of %s), latency up (rows of powers of "
		     "two, %s to %s); the darker a cell, the more of them.",
		     (unsigned long long)total, what, HEATMAP_COLS,
		     pp_format_ns(col_ns, a, sizeof(a)),
		     pp_format_ns(1ull << lo, b, sizeof(b)),
		     pp_format_ns(hi < 63 ? 2ull << hi : UINT64_MAX, e, sizeof(e)));
	free(h);
	return total;
}
