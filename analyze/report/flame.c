/* SPDX-License-Identifier: MIT */
/*
 * flame.c - a flame graph section: folded stacks read into common/flamegraph.c's tree,
 * pruned, and handed to the page's script as data.
 *
 * The data is the tree in pre-order, three numbers a frame: depth, name index,
 * total weight ("nodes":[d,n,t, d,n,t ...]) with the names once each ("names").
 * The script rebuilds parents from the depths.  Pruning keeps a frame when its
 * total is at least min_pct of the whole and it is among the max_frames largest:
 * a child never outweighs its parent, so what is kept is a tree (every parent of
 * a kept frame is kept), and what was left out shows as the gap beside a frame's
 * children.  The page says how many frames and how much weight were left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/flamegraph.h"
#include "common/intern.h"
#include "common/log.h"

struct flame_out {
	struct pp_buf *nodes;
	struct pp_intern *names;
	uint64_t min_total;
	size_t nr_kept, nr_left;
	uint64_t left_weight;		/* of the left-out frames whose parent was kept */
	uint64_t *totals;		/* every frame's, to find the cut */
	size_t nr_totals, cap_totals;
	uint32_t max_depth;
};

static int collect(struct pp_flame_node *n, void *arg)
{
	struct flame_out *o = arg;

	if (o->nr_totals == o->cap_totals) {
		o->cap_totals = o->cap_totals ? 2 * o->cap_totals : 1024;
		o->totals = pp_xrealloc(o->totals, o->cap_totals * sizeof(*o->totals));
	}
	o->totals[o->nr_totals++] = n->total;
	return 0;
}

static int emit(struct pp_flame_node *n, void *arg)
{
	struct flame_out *o = arg;
	bool added;

	if (n->total < o->min_total) {
		o->nr_left++;
		if (!n->parent->parent || n->parent->total >= o->min_total)
			o->left_weight += n->total;
		return 0;
	}
	pp_buf_addf(o->nodes, ",%u,%u,%llu", n->depth,
		    pp_intern_put_str(o->names, n->name, &added), (unsigned long long)n->total);
	o->nr_kept++;
	if (n->depth > o->max_depth)
		o->max_depth = n->depth;
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The smallest total kept: min_pct of @total, raised so that at most @max frames stay. */
static uint64_t cut(struct flame_out *o, uint64_t total, const struct ana_rpt_flame_opts *opt)
{
	uint64_t min = (uint64_t)((double)total * opt->min_pct / 100.0);

	if (min < 1)
		min = 1;
	if (opt->max_frames && o->nr_totals > opt->max_frames) {
		qsort(o->totals, o->nr_totals, sizeof(*o->totals), cmp_desc);
		/* ties at the cut would pass it together: cut just above them */
		if (o->totals[opt->max_frames] >= min)
			min = o->totals[opt->max_frames] + 1;
	}
	return min;
}

static int load(const char *path, struct pp_flame *fg)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!fp)
		return -1;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (*line)
			pp_flame_add_folded_line(fg, line);
	}
	free(line);
	fclose(fp);
	return 0;
}

uint64_t ana_rpt_flame(struct ana_rpt *r, const char *path, const struct ana_rpt_flame_opts *opt)
{
	struct pp_flame *fg = pp_flame_new();
	struct pp_buf nodes = PP_BUF_INIT;
	struct flame_out o = { .nodes = &nodes, .names = pp_intern_new() };
	const char *unit = opt->unit ? opt->unit : "samples";
	uint64_t total;
	char pct[32];

	if (load(path, fg))
		pp_warn("report: cannot read the flame graph's stacks '%s'", path);
	total = pp_flame_sum(fg);
	if (!total) {
		ana_rpt_text(r, "no stacks to draw");
		goto out;
	}
	pp_flame_walk(fg, collect, &o);
	o.min_total = cut(&o, total, opt);
	pp_flame_walk(fg, emit, &o);

	if (r->nr_flames++)
		pp_buf_addch(&r->flames, ',');
	pp_buf_addf(&r->flames, "{\"unit\":");
	rpt_json(&r->flames, unit);
	pp_buf_addf(&r->flames, ",\"total\":%llu,\"depth\":%u,\"names\":[",
		    (unsigned long long)total, o.max_depth);
	for (size_t i = 0; i < pp_intern_count(o.names); i++) {
		if (i)
			pp_buf_addch(&r->flames, ',');
		rpt_json(&r->flames, pp_intern_key(o.names, (uint32_t)i, NULL));
	}
	/* the root, "all", is the first node: depth 0, no name index */
	pp_buf_addf(&r->flames, "],\"nodes\":[0,-1,%llu", (unsigned long long)total);
	pp_buf_add(&r->flames, nodes.data, nodes.len);
	pp_buf_adds(&r->flames, "]}");

	pp_buf_addf(&r->body, "<div class=\"flame\" data-flame=\"%zu\">\n"
		    "<div class=\"ftools\"><input type=\"search\" class=\"fsearch\" "
		    "placeholder=\"search (regular expression)\" aria-label=\"search frames\">"
		    "<button type=\"button\" class=\"freset\">reset zoom</button>"
		    "<span class=\"fstatus\"></span></div>\n"
		    "<div class=\"fgraph\"></div>\n<div class=\"finfo\">&nbsp;</div>\n</div>\n",
		    r->nr_flames - 1);
	snprintf(pct, sizeof(pct), "%g%%", opt->min_pct);
	if (o.nr_left)
		ana_rpt_text(r, "%zu frames drawn; %zu frames under %llu %s (%s of %llu, or beyond the "
			     "%zu largest) are left out, %llu %s in all: the gaps beside their "
			     "parents' children.", o.nr_kept, o.nr_left,
			     (unsigned long long)o.min_total, unit, pct, (unsigned long long)total,
			     opt->max_frames, (unsigned long long)o.left_weight, unit);
	else
		ana_rpt_text(r, "%zu frames, %llu %s: every stack is drawn.", o.nr_kept,
			     (unsigned long long)total, unit);
	ana_rpt_text(r, "Click a frame to zoom into it, the bottom frame or \"reset zoom\" to come "
		     "back; the search box marks the frames whose name matches and sums their "
		     "share.");
out:
	pp_buf_release(&nodes);
	pp_intern_free(o.names);
	free(o.totals);
	pp_flame_free(fg);
	return total;
}
