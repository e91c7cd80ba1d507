/* SPDX-License-Identifier: MIT */
/*
 * flame.c - a flame graph section: folded stacks read into common/flamegraph.c's tree,
 * pruned, and handed to the page's script as data.
 *
 * The data is the tree in pre-order, three numbers a frame: depth, name index,
 * total weight ("nodes":[d,n,t, d,n,t ...]) with the names once each ("names").
 * The script rebuilds parents from the depths.  Pruning keeps a frame when its
 * total is at least min_pct of the whole and it is among the max_frames first in
 * rank order (heavier, then shallower, then earlier): a parent ranks before its
 * children, so what is kept is a tree, and what was left out shows as the gap
 * above a frame's callers.  The page says how many frames were left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/report/internal.h"
#include "common/flamegraph.h"
#include "common/intern.h"
#include "common/log.h"

/* A frame as the cut sees it: its weight, depth and place in the pre-order walk. */
struct flame_rank {
	uint64_t total;
	uint32_t depth;
	size_t idx;
};

struct flame_out {
	struct pp_buf *nodes;
	struct pp_intern *names;
	struct flame_rank *ranks;	/* every frame's, to find the cut */
	size_t nr_ranks, cap_ranks;
	struct flame_rank cut;		/* the last frame kept, in rank order */
	size_t idx;			/* the walk's position */
	size_t nr_kept, nr_left;
	uint32_t max_depth;
};

static int collect(struct pp_flame_node *n, void *arg)
{
	struct flame_out *o = arg;

	if (o->nr_ranks == o->cap_ranks) {
		o->cap_ranks = o->cap_ranks ? 2 * o->cap_ranks : 1024;
		o->ranks = pp_xrealloc(o->ranks, o->cap_ranks * sizeof(*o->ranks));
	}
	o->ranks[o->nr_ranks] = (struct flame_rank){ n->total, n->depth, o->nr_ranks };
	o->nr_ranks++;
	return 0;
}

/*
 * Rank order: heavier first, then shallower, then earlier in the walk.  A parent
 * weighs at least as much as its child and is shallower, so it always ranks before
 * it: the first N frames of this order are a tree.
 */
static int rank_cmp(const void *a, const void *b)
{
	const struct flame_rank *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool kept(const struct flame_out *o, const struct flame_rank *k)
{
	return rank_cmp(k, &o->cut) <= 0;
}

static int emit(struct pp_flame_node *n, void *arg)
{
	struct flame_out *o = arg;
	struct flame_rank k = { n->total, n->depth, o->idx++ };
	bool added;

	if (!kept(o, &k)) {
		o->nr_left++;
		return 0;
	}
	pp_buf_addf(o->nodes, ",%u,%u,%llu", n->depth,
		    pp_intern_put_str(o->names, n->name, &added), (unsigned long long)n->total);
	o->nr_kept++;
	if (n->depth > o->max_depth)
		o->max_depth = n->depth;
	return 0;
}

/*
 * The last frame kept: of the frames of at least min_pct of @total, the max_frames
 * first in rank order.  Return: the smallest weight kept.
 */
static uint64_t cut(struct flame_out *o, uint64_t total, const struct ana_rpt_flame_opts *opt)
{
	uint64_t min = (uint64_t)((double)total * opt->min_pct / 100.0);
	size_t n = 0;

	qsort(o->ranks, o->nr_ranks, sizeof(*o->ranks), rank_cmp);
	while (n < o->nr_ranks && o->ranks[n].total >= (min ? min : 1) &&
	       (!opt->max_frames || n < opt->max_frames))
		n++;
	/* nothing passes: a cut before the first frame */
	o->cut = n ? o->ranks[n - 1] : (struct flame_rank){ UINT64_MAX, 0, 0 };
	return n ? o->ranks[n - 1].total : 0;
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
	uint64_t total, smallest;
	char pct[32];

	if (load(path, fg))
		pp_warn("report: cannot read the flame graph's stacks '%s'", path);
	total = pp_flame_sum(fg);
	if (!total) {
		ana_rpt_text(r, "no stacks to draw");
		goto out;
	}
	pp_flame_walk(fg, collect, &o);
	smallest = cut(&o, total, opt);
	pp_flame_walk(fg, emit, &o);

	if (r->nr_flames++)
		pp_buf_addch(&r->flames, ',');
	pp_buf_addf(&r->flames, "{\"unit\":");
	rpt_json(&r->flames, unit);
	pp_buf_addf(&r->flames, ",\"total\":%llu,\"depth\":%u,\"left\":%zu,\"names\":[",
		    (unsigned long long)total, o.max_depth, o.nr_left);
	for (size_t i = 0; i < pp_intern_count(o.names); i++) {
		if (i)
			pp_buf_addch(&r->flames, ',');
		rpt_json(&r->flames, pp_intern_key(o.names, (uint32_t)i, NULL));
	}
	/* the root, "all", is the first node: depth 0, no name index */
	pp_buf_addf(&r->flames, "],\"nodes\":[0,-1,%llu", (unsigned long long)total);
	pp_buf_adds(&r->flames, pp_buf_str(&nodes));
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
		ana_rpt_text(r, "%zu frames drawn, the smallest of %llu %s; %zu smaller frames "
			     "(under %s of the %llu, or beyond the %zu largest) are left out: "
			     "they are the gaps above their callers.", o.nr_kept,
			     (unsigned long long)smallest, unit, o.nr_left, pct,
			     (unsigned long long)total, opt->max_frames);
	else
		ana_rpt_text(r, "%zu frames, %llu %s: every stack is drawn.", o.nr_kept,
			     (unsigned long long)total, unit);
	ana_rpt_text(r, "Click a frame to zoom into it, the bottom frame or \"reset zoom\" to come "
		     "back; the search box marks the frames whose name matches and sums their "
		     "share.");
out:
	pp_buf_release(&nodes);
	pp_intern_free(o.names);
	free(o.ranks);
	pp_flame_free(fg);
	return total;
}
