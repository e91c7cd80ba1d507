/* SPDX-License-Identifier: MIT */
/*
 * twoevent-call.c - the call and call-delay implementations of the engine.
 *
 * call / call-delay (nested-trace): each -e is an (entry, exit) pair; an
 * entry seen while another entry of the same key is open becomes its
 * callee, which builds a call tree printed as "  |-name" lines (" R" when
 * recursive); call-delay adds the entry->exit latency of each function.
 * The tree is printed (and its latencies reset) whenever its shape changes
 * and at each interval.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"

/* --- call, call-delay ------------------------------------------------------------- */

struct caller {
	struct te_pair *pair;
	struct caller *parent;
	struct caller **callees;
	unsigned nr_callees;
	int depth;
	bool recursive, is_root;
};

struct call_class {
	struct caller **roots;
	unsigned nr_roots;
	uint64_t calls;
	int max_depth;
};

static struct call_class *cls(struct ana_te *te)
{
	return te->impl_priv;
}

static void caller_unlink(struct caller *c)
{
	struct caller *p = c->parent;

	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_callees; i++)
		if (p->callees[i] == c) {
			memmove(&p->callees[i], &p->callees[i + 1],
				(p->nr_callees - i - 1) * sizeof(*p->callees));
			p->nr_callees--;
			break;
		}
	c->parent = NULL;
}

static void root_remove(struct call_class *cc, struct caller *c)
{
	for (unsigned i = 0; i < cc->nr_roots; i++)
		if (cc->roots[i] == c) {
			memmove(&cc->roots[i], &cc->roots[i + 1],
				(cc->nr_roots - i - 1) * sizeof(*cc->roots));
			cc->nr_roots--;
			break;
		}
	c->is_root = false;
}

static void update_depth(struct call_class *cc, struct caller *c)
{
	c->depth = c->parent ? c->parent->depth + 1 : 0;
	if (c->depth > cc->max_depth)
		cc->max_depth = c->depth;
	for (unsigned i = 0; i < c->nr_callees; i++)
		update_depth(cc, c->callees[i]);
}

static int flen(struct ana_te *te)
{
	int n = cls(te)->max_depth * 4 + te->max_len1;

	return n < 13 ? 13 : n;	/* "function call" */
}

static void json_caller(struct ana_te *te, struct caller *c, bool *first)
{
	void *inner = pp_u64map_get(&te->lat, 0);
	struct te_lat *l = inner ? pp_u64map_get(inner, c->pair->id) : NULL;
	struct pp_buf *b = &te->line;

	pp_buf_adds(b, *first ? "{\"function\":" : ",{\"function\":");
	*first = false;
	pp_buf_add_json_str(b, c->pair->tp1->name);
	pp_buf_addf(b, ",\"depth\":%d,\"recursive\":%s", c->depth, c->recursive ? "true" : "false");
	if (l)
		pp_buf_addf(b, ",\"calls\":%llu,\"total_us\":%.3f,\"min_us\":%.3f,\"p50_us\":%.3f,"
			    "\"p95_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f",
			    (unsigned long long)l->n, l->sum / 1000.0, l->min / 1000.0,
			    ana_te_lat_pct(l, 50) / 1000.0, ana_te_lat_pct(l, 95) / 1000.0,
			    ana_te_lat_pct(l, 99) / 1000.0, l->max / 1000.0);
	pp_buf_addch(b, '}');
	for (unsigned i = 0; i < c->nr_callees; i++)
		json_caller(te, c->callees[i], first);
}

static void print_caller(struct ana_te *te, struct caller *c)
{
	int len = 0;

	if (c->depth > 0) {
		for (int i = 0; i < c->depth - 1; i++)
			len += fprintf(te->fp, "  | ");
		len += fprintf(te->fp, "  |-");
	}
	if (te->impl_id == ANA_TE_CALL) {
		fprintf(te->fp, "%s%s\n", c->pair->tp1->name, c->recursive ? " R" : "");
	} else {
		void *inner = pp_u64map_get(&te->lat, 0);
		struct te_lat *l = inner ? pp_u64map_get(inner, c->pair->id) : NULL;

		fprintf(te->fp, "%-*s %s", flen(te) - len, c->pair->tp1->name,
			c->recursive ? "R" : " ");
		if (l)
			fprintf(te->fp, " %8llu %16.3f %12.3f %12.3f %12.3f %12.3f %12.3f\n",
				(unsigned long long)l->n, l->sum / 1000.0, l->min / 1000.0,
				ana_te_lat_pct(l, 50) / 1000.0,
				ana_te_lat_pct(l, 95) / 1000.0,
				ana_te_lat_pct(l, 99) / 1000.0, l->max / 1000.0);
		else
			fputc('\n', te->fp);
	}
	for (unsigned i = 0; i < c->nr_callees; i++)
		print_caller(te, c->callees[i]);
}

static void call_tree_print(struct ana_te *te, uint64_t now_ns)
{
	struct call_class *cc = cls(te);

	if (!cc->calls)
		return;
	if (!te->text) {
		char wall[48];
		bool first = true;

		pp_buf_reset(&te->line);
		pp_buf_addf(&te->line, "{\"%s\":{\"time\":\"%s\",\"calls\":[", te->az->name,
			    ana_time_str(te->s, now_ns, wall, sizeof(wall)));
		for (unsigned i = 0; i < cc->nr_roots; i++)
			json_caller(te, cc->roots[i], &first);
		pp_buf_adds(&te->line, "]}}\n");
		fputs(pp_buf_str(&te->line), te->fp);
		goto out;
	}
	if (te->impl_id == ANA_TE_CALL_DELAY) {
		int w = flen(te);
		ana_report_header(te->az);
		ana_te_print_time_line(te, now_ns);
		fprintf(te->fp, "%*s R %8s %16s %12s %12s %12s %12s %12s\n", w, "function call",
			"calls", "total(us)", "min(us)", "p50(us)", "p95(us)", "p99(us)",
			"max(us)");
		for (int i = 0; i < w; i++)
			fputc('-', te->fp);
		fprintf(te->fp, " - %8s %16s %12s %12s %12s %12s %12s\n", "--------",
			"----------------", "------------", "------------", "------------",
			"------------", "------------");
	}
	for (unsigned i = 0; i < cc->nr_roots; i++)
		print_caller(te, cc->roots[i]);
out:
	if (te->impl_id == ANA_TE_CALL_DELAY)
		ana_te_lat_reset(te);
	cc->calls = 0;
}

static int call_init(struct ana_te *te)
{
	struct call_class *cc = pp_xcalloc(1, sizeof(*cc));

	te->impl_priv = cc;
	te->perins = false;	/* perf-prof: call-delay has no per-instance rows */
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct caller *c = pp_xcalloc(1, sizeof(*c));
		c->pair = te->pairs[i];
		te->pairs[i]->impl = c;
	}
	if (te->impl_id == ANA_TE_CALL_DELAY)
		return ana_te_delay_ops.init(te);
	return 0;
}

/* two(A, none): A is a root; two(A, B): A calls B; false when B is not an entry (an exit). */
static bool call_link(struct ana_te *te, struct te_pair *p, struct te_tp *tp2)
{
	struct call_class *cc = cls(te);
	struct caller *caller = p->impl, *callee;
	struct te_pair *q;

	if (!tp2) {
		if (caller->parent) {
			call_tree_print(te, te->recent_ns);
			caller_unlink(caller);
			update_depth(cc, caller);
		}
		if (!caller->is_root) {
			cc->roots = pp_xrealloc(cc->roots, (cc->nr_roots + 1) * sizeof(*cc->roots));
			cc->roots[cc->nr_roots++] = caller;
			caller->is_root = true;
		}
		cc->calls++;
		return true;
	}
	q = ana_te_pair_find(te, tp2, NULL);
	if (!q || q->tp1 != tp2)
		return false;
	callee = q->impl;
	caller->recursive = false;
	for (struct caller *c = caller; c; c = c->parent)
		if (c == callee)
			caller->recursive = true;
	if (callee->parent != caller && !caller->recursive) {
		if (callee->parent || callee->is_root)
			call_tree_print(te, te->recent_ns);
		caller_unlink(callee);
		if (callee->is_root)
			root_remove(cc, callee);
		caller->callees = pp_xrealloc(caller->callees,
					      (caller->nr_callees + 1) * sizeof(*caller->callees));
		caller->callees[caller->nr_callees++] = callee;
		callee->parent = caller;
		update_depth(cc, callee);
	}
	cc->calls++;
	return true;
}

static void call_two(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		     struct te_iter *it)
{
	if (call_link(te, p, e2 ? e2->tp : NULL) || te->impl_id != ANA_TE_CALL_DELAY)
		return;
	ana_te_delay_ops.two(te, p, e1, e2, it);
}

static void call_release(struct ana_te *te)
{
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct caller *c = te->pairs[i]->impl;
		if (!c)
			continue;
		free(c->callees);
		free(c);
		te->pairs[i]->impl = NULL;
	}
	if (cls(te))
		free(cls(te)->roots);
	free(te->impl_priv);
	te->impl_priv = NULL;
}

const struct te_impl_ops ana_te_call_ops = {
	.name = "call",
	.call_based = true,
	.init = call_init,
	.two = call_two,
	.print = call_tree_print,
	.release = call_release,
};

const struct te_impl_ops ana_te_call_delay_ops = {
	.name = "call-delay",
	.call_based = true,
	.init = call_init,
	.two = call_two,
	.print = call_tree_print,
	.release = call_release,
};
