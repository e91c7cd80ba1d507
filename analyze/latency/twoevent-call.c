/* SPDX-License-Identifier: MIT */
/*
 * twoevent-call.c - the kmemprof, call and call-delay implementations of the engine.
 *
 * kmemprof: an alloc event (event1, size=EXPR bytes) matched with its free
 * (event2) adds its bytes to the alloc stack's and the free stack's totals;
 * allocations never freed are counted on the (alloc, none) pair when the
 * capture ends.  Each interval prints, per pair, the top 10 stacks by bytes
 * in perf-prof's "Allocate B (P%) bytes on N (P%) objects:" layout.
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

#define KMEM_FIRST_N 10

/* --- kmemprof ------------------------------------------------------------------- */

struct km_stack {
	struct km_stack *next;		/* hash chain */
	uint64_t hash, bytes;
	unsigned n;
	struct pp_event ev;		/* pid, time and the frames, for symbolizing */
	uint64_t frames[];
};

struct km_map {
	struct pp_u64map by_hash;	/* hash -> struct km_stack chain */
	size_t nr;
};

struct km_pair {
	struct km_map alloc, free;
	uint64_t nr_alloc, alloc_bytes, nr_free, free_bytes;
};

static uint64_t stack_hash(const uint64_t *v, uint32_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;

	for (uint32_t i = 0; i < n; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static void km_add(struct km_map *m, const struct pp_event *ev, uint64_t bytes)
{
	uint64_t h = stack_hash(ev->stack, ev->nr_stack);
	void **slot = pp_u64map_slot(&m->by_hash, h);
	struct km_stack *s;

	for (s = *slot; s; s = s->next)
		if (s->ev.nr_stack == ev->nr_stack &&
		    !memcmp(s->frames, ev->stack, ev->nr_stack * sizeof(uint64_t)))
			break;
	if (!s) {
		s = pp_xcalloc(1, sizeof(*s) + ev->nr_stack * sizeof(uint64_t));
		memcpy(s->frames, ev->stack, ev->nr_stack * sizeof(uint64_t));
		s->ev = *ev;
		s->ev.stack = s->frames;
		s->ev.raw = NULL;
		s->ev.raw_sz = 0;
		s->ev.extra = NULL;
		s->ev.extra_sz = 0;
		s->hash = h;
		s->next = *slot;
		*slot = s;
		m->nr++;
	}
	s->bytes += bytes;
	s->n++;
}

static void km_reset(struct km_map *m)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	while (pp_u64map_next(&m->by_hash, &it, &k, &v))
		for (struct km_stack *s = v, *next; s; s = next) {
			next = s->next;
			free(s);
		}
	pp_u64map_release(&m->by_hash);
	m->nr = 0;
}

static int km_cmp(const void *a, const void *b)
{
	const struct km_stack *x = *(struct km_stack *const *)a, *y = *(struct km_stack *const *)b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* ,"alloc_stacks":[{"bytes":B,"objects":N,"stack":["frame",...]},...] (top 10) */
static void km_json(struct ana_te *te, struct km_stack **v, size_t n, const char *what)
{
	struct pp_buf *b = &te->line;

	pp_buf_addf(b, ",\"%s_stacks\":[", what);
	for (size_t i = 0; i < n && i < KMEM_FIRST_N; i++) {
		char *line, *save = NULL;
		bool first = true;

		pp_buf_addf(b, "%s{\"bytes\":%llu,\"objects\":%u,\"stack\":[", i ? "," : "",
			    (unsigned long long)v[i]->bytes, v[i]->n);
		pp_buf_reset(&te->scratch);
		ana_stack_print(te->s, &v[i]->ev, &te->scratch);
		for (line = strtok_r(te->scratch.data, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			while (*line == ' ')
				line++;
			if (!first)
				pp_buf_addch(b, ',');
			pp_buf_add_json_str(b, line);
			first = false;
		}
		pp_buf_adds(b, "]}");
	}
	pp_buf_addch(b, ']');
}

static void km_print(struct ana_te *te, struct km_map *m, const char *what, uint64_t total,
		     uint64_t nr_total)
{
	struct km_stack **v = pp_xmalloc((m->nr + 1) * sizeof(*v));
	size_t it = 0, n = 0;
	uint64_t k;
	void *val;

	while (pp_u64map_next(&m->by_hash, &it, &k, &val))
		for (struct km_stack *s = val; s; s = s->next)
			v[n++] = s;
	qsort(v, n, sizeof(*v), km_cmp);
	if (!te->text) {
		km_json(te, v, n, what);
		free(v);
		return;
	}
	for (size_t i = 0; i < n && i < KMEM_FIRST_N; i++) {
		fprintf(te->fp, "%s %llu (%.1f%%) bytes on %u (%.1f%%) objects:\n",
			!strcmp(what, "alloc") ? "Allocate" : "Free",
			(unsigned long long)v[i]->bytes,
			v[i]->bytes * 100.0 / (total ? total : 1), v[i]->n,
			v[i]->n * 100.0 / (nr_total ? nr_total : 1));
		pp_buf_reset(&te->scratch);
		ana_stack_print(te->s, &v[i]->ev, &te->scratch);
		fputs(pp_buf_str(&te->scratch), te->fp);
	}
	if (n > KMEM_FIRST_N)
		fprintf(te->fp, "Skipping %s numbered %u..%zu\n", what, KMEM_FIRST_N + 1, n);
	free(v);
}

static int kmem_init(struct ana_te *te)
{
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct te_pair *p = te->pairs[i];
		const struct ana_evtype *t1 = p->tp1->sel->type;
		if (!p->tp1->size) {
			pp_err("%s: %s//size=?/ size attribute is not set", te->az->name,
			       t1->name);
			return -1;
		}
		p->impl = pp_xcalloc(1, sizeof(struct km_pair));
	}
	for (unsigned i = 0; i < te->nr_tps; i++) {
		const struct te_tp *tp = &te->tps[i];
		if (!tp->untraced && !(tp->sel->type->desc_flags & 4 /* PPF_EVF_STACK */) &&
		    !tp->stack)
			pp_warn("%s: %s has no stacks in this capture: its bytes cannot be "
				"profiled by stack (record it with //stack/ or -g)",
				te->az->name, tp->sel->type->name);
	}
	return 0;
}

static void kmem_two(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		     struct te_iter *it)
{
	struct km_pair *k = p->impl;
	int64_t v = ana_expr_eval(te->az, p->tp1->size, &e1->ev);
	uint64_t bytes = v == -1 ? 1 : (uint64_t)v;

	k->nr_alloc++;
	k->alloc_bytes += bytes;
	if (e1->ev.nr_stack)
		km_add(&k->alloc, &e1->ev, bytes);
	if (e2) {
		k->nr_free++;
		k->free_bytes += bytes;
		if (e2->ev.nr_stack)
			km_add(&k->free, &e2->ev, bytes);
	}
}

static bool kmem_remaining(struct ana_te *te, struct te_pair *p, struct te_node *e1, int reason,
			   struct te_iter *it)
{
	kmem_two(te, p, e1, NULL, NULL);
	return true;
}

/* --format json: one object per pair, {"kmemprof":{...}} */
static void kmem_print_json(struct ana_te *te, struct te_pair *p, struct km_pair *k,
			    uint64_t now_ns)
{
	struct pp_buf *b = &te->line;
	char wall[48];

	pp_buf_reset(b);
	pp_buf_addf(b, "{\"%s\":{\"time\":\"%s\",\"alloc_event\":", te->az->name,
		    ana_time_str(te->s, now_ns, wall, sizeof(wall)));
	pp_buf_add_json_str(b, p->tp1->sel->type->name);
	pp_buf_adds(b, ",\"free_event\":");
	pp_buf_add_json_str(b, p->tp2 ? p->tp2->sel->type->name : "");
	pp_buf_addf(b, ",\"not_freed\":%s,\"alloc_bytes\":%llu,\"alloc_objects\":%llu",
		    p->tp2 ? "false" : "true", (unsigned long long)k->alloc_bytes,
		    (unsigned long long)k->nr_alloc);
	km_print(te, &k->alloc, "alloc", k->alloc_bytes, k->nr_alloc);
	if (p->tp2) {
		pp_buf_addf(b, ",\"free_bytes\":%llu,\"free_objects\":%llu",
			    (unsigned long long)k->free_bytes, (unsigned long long)k->nr_free);
		km_print(te, &k->free, "free", k->free_bytes, k->nr_free);
	}
	pp_buf_adds(b, "}}\n");
	fputs(pp_buf_str(b), te->fp);
}

static void kmem_print(struct ana_te *te, uint64_t now_ns)
{
	if (te->text)
		ana_report_header(te->az);
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct te_pair *p = te->pairs[i];
		struct km_pair *k = p->impl;
		const char *n1 = p->tp1->sel->type->name;

		if (!te->text) {
			if (p->tp2 || k->nr_alloc)
				kmem_print_json(te, p, k, now_ns);
			goto reset;
		}

		if (!p->tp2) {
			if (!k->nr_alloc)
				continue;
			ana_te_print_time_line(te, now_ns);
			fprintf(te->fp, "%s total alloc %llu bytes on %llu objects but not freed\n",
				n1, (unsigned long long)k->alloc_bytes,
				(unsigned long long)k->nr_alloc);
		} else {
			ana_te_print_time_line(te, now_ns);
			fprintf(te->fp, "%s => %s\n", n1, p->tp2->sel->type->name);
			fprintf(te->fp, "%s total alloc %llu bytes on %llu objects\n", n1,
				(unsigned long long)k->alloc_bytes,
				(unsigned long long)k->nr_alloc);
		}
		km_print(te, &k->alloc, "alloc", k->alloc_bytes, k->nr_alloc);
		if (p->tp2) {
			fprintf(te->fp, "%s total free %llu bytes on %llu objects\n",
				p->tp2->sel->type->name, (unsigned long long)k->free_bytes,
				(unsigned long long)k->nr_free);
			km_print(te, &k->free, "free", k->free_bytes, k->nr_free);
		}
		fputc('\n', te->fp);
reset:
		k->nr_alloc = k->nr_free = k->alloc_bytes = k->free_bytes = 0;
		km_reset(&k->alloc);
		km_reset(&k->free);
	}
}

static void kmem_release(struct ana_te *te)
{
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		struct km_pair *k = te->pairs[i]->impl;
		if (!k)
			continue;
		km_reset(&k->alloc);
		km_reset(&k->free);
		free(k);
		te->pairs[i]->impl = NULL;
	}
}

const struct te_impl_ops ana_te_kmemprof_ops = {
	.name = "kmemprof",
	.init = kmem_init,
	.two = kmem_two,
	.remaining = kmem_remaining,
	.print = kmem_print,
	.release = kmem_release,
};

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
