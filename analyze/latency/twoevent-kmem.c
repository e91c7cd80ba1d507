/* SPDX-License-Identifier: MIT */
/*
 * twoevent-kmem.c - the kmemprof implementation of the engine.
 *
 * An alloc event (event1, size=EXPR bytes) matched with its free (event2)
 * adds its bytes to the alloc stack's and the free stack's totals;
 * allocations never freed are counted on the (alloc, none) pair when the
 * capture ends.  Each interval prints, per pair, the top 10 stacks by bytes
 * in perf-prof's "Allocate B (P%) bytes on N (P%) objects:" layout.
 *
 * As mergeable state (docs/state-format.md "kmemprof"), the tables hold the
 * stacks' text as the range resolved it, so that a report needs no capture:
 * every stack of the tables and of the events the range leaves at its edges
 * is written once with its frames and text; the tables refer to them.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/wire.h"

#define KMEM_FIRST_N 10
#define KM_MAX_FRAMES 4096	/* as an event's callchain in the engine's edges */

struct km_stack {
	struct km_stack *next;		/* hash chain */
	uint64_t hash, bytes;
	unsigned n;
	const char *text;		/* read from a state (the texts' own), or NULL */
	struct pp_event ev;		/* pid, time and the frames, for symbolizing */
	uint64_t frames[];
};

/* A call stack's text as the range that resolved it printed it (a state's texts). */
struct km_text {
	struct km_text *next;		/* hash chain */
	uint64_t hash;
	uint32_t nr;
	char *text;
	uint64_t frames[];
};

/* te->impl_priv: the texts of the states read, by hash of their frames. */
struct km_texts {
	struct pp_u64map by_hash;
	size_t nr;
};

struct km_map {
	struct pp_u64map by_hash;	/* hash -> struct km_stack chain */
	size_t nr;
};

struct km_pair {
	struct km_map alloc, free;
	uint64_t nr_alloc, alloc_bytes, nr_free, free_bytes;
};

static struct km_text *text_find(struct ana_te *te, const uint64_t *v, uint32_t n, uint64_t h)
{
	struct km_texts *t = te->impl_priv;

	for (struct km_text *x = t ? pp_u64map_get(&t->by_hash, h) : NULL; x; x = x->next)
		if (x->nr == n && !memcmp(x->frames, v, n * sizeof(*v)))
			return x;
	return NULL;
}

static void km_add(struct ana_te *te, struct km_map *m, const struct pp_event *ev, uint64_t bytes,
		   unsigned n)
{
	uint64_t h = pp_hash_u64s(ev->stack, ev->nr_stack);
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
		if (te->impl_priv) {
			const struct km_text *x = text_find(te, ev->stack, ev->nr_stack, h);
			s->text = x ? x->text : NULL;
		}
	}
	s->bytes += bytes;
	s->n += n;
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

/* Frames in order: fewer first, then the first frame that differs. */
static int frames_cmp(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
	if (na != nb)
		return na < nb ? -1 : 1;
	for (uint32_t i = 0; i < na; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* Most bytes first, then most objects; ties by frames, so that any order of adding prints the same. */
static int km_cmp(const void *a, const void *b)
{
	const struct km_stack *x = *(struct km_stack *const *)a, *y = *(struct km_stack *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return frames_cmp(x->frames, x->ev.nr_stack, y->frames, y->ev.nr_stack);
}

/* @s's frames, one a line, as ana_stack_print() prints them (or the state's text). */
static void km_stack_text(struct ana_te *te, const struct km_stack *s, struct pp_buf *out)
{
	if (s->text)
		pp_buf_adds(out, s->text);
	else
		ana_stack_print(te->s, &s->ev, out);
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
		km_stack_text(te, v[i], &te->scratch);
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

/* @m's stacks in a new array of m->nr, sorted by @cmp. */
static struct km_stack **km_collect(const struct km_map *m, int (*cmp)(const void *, const void *))
{
	struct km_stack **v = pp_xmalloc((m->nr + 1) * sizeof(*v));
	size_t it = 0, n = 0;
	uint64_t k;
	void *val;

	while (pp_u64map_next(&m->by_hash, &it, &k, &val))
		for (struct km_stack *s = val; s; s = s->next)
			v[n++] = s;
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

static void km_print(struct ana_te *te, struct km_map *m, const char *what, uint64_t total,
		     uint64_t nr_total)
{
	struct km_stack **v = km_collect(m, km_cmp);
	size_t n = m->nr;
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
		km_stack_text(te, v[i], &te->scratch);
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
		km_add(te, &k->alloc, &e1->ev, bytes, 1);
	if (e2) {
		k->nr_free++;
		k->free_bytes += bytes;
		if (e2->ev.nr_stack)
			km_add(te, &k->free, &e2->ev, bytes, 1);
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

static void texts_free(struct ana_te *te)
{
	struct km_texts *t = te->impl_priv;
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!t)
		return;
	while (pp_u64map_next(&t->by_hash, &it, &k, &v))
		for (struct km_text *x = v, *next; x; x = next) {
			next = x->next;
			free(x->text);
			free(x);
		}
	pp_u64map_release(&t->by_hash);
	free(t);
	te->impl_priv = NULL;
}

static void kmem_release(struct ana_te *te)
{
	texts_free(te);
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

/* --- mergeable state (docs/state-format.md "kmemprof") ----------------------------- */

/* The texts a state writes: every stack of the tables and of the edges' events, once. */
struct km_out {
	struct pp_u64map by_hash;	/* hash -> struct km_text chain */
	struct km_text **v;
	size_t nr, cap;
	struct pp_buf buf;
};

static struct km_text *text_new(const uint64_t *f, uint32_t n, uint64_t h, const char *text)
{
	struct km_text *x = pp_xcalloc(1, sizeof(*x) + n * sizeof(*f));

	memcpy(x->frames, f, n * sizeof(*f));
	x->nr = n;
	x->hash = h;
	x->text = pp_xstrdup(text);
	return x;
}

static void out_add(struct ana_te *te, struct km_out *o, const struct pp_event *ev, const char *text)
{
	uint64_t h = pp_hash_u64s(ev->stack, ev->nr_stack);
	void **slot = pp_u64map_slot(&o->by_hash, h);
	const struct km_text *known;
	struct km_text *x;

	for (x = *slot; x; x = x->next)
		if (x->nr == ev->nr_stack && !memcmp(x->frames, ev->stack, x->nr * sizeof(uint64_t)))
			return;
	if (!text) {
		known = text_find(te, ev->stack, ev->nr_stack, h);
		pp_buf_reset(&o->buf);
		if (!known)
			ana_stack_print(te->s, ev, &o->buf);
		text = known ? known->text : pp_buf_str(&o->buf);
	}
	x = text_new(ev->stack, ev->nr_stack, h, text);
	x->next = *slot;
	*slot = x;
	if (o->nr == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = pp_xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->nr++] = x;
}

static void out_node(struct ana_te *te, const struct te_node *n, void *arg)
{
	if (n->ev.nr_stack)
		out_add(te, arg, &n->ev, NULL);
}

static void out_map(struct ana_te *te, struct km_out *o, const struct km_map *m)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	while (pp_u64map_next(&m->by_hash, &it, &k, &v))
		for (const struct km_stack *s = v; s; s = s->next) {
			if (s->text) {
				out_add(te, o, &s->ev, s->text);
			} else {
				pp_buf_reset(&o->buf);
				ana_stack_print(te->s, &s->ev, &o->buf);
				out_add(te, o, &s->ev, pp_buf_str(&o->buf));
			}
		}
}

static int text_cmp(const void *a, const void *b)
{
	const struct km_text *x = *(struct km_text *const *)a, *y = *(struct km_text *const *)b;

	return frames_cmp(x->frames, x->nr, y->frames, y->nr);
}

static int stack_frames_cmp(const void *a, const void *b)
{
	const struct km_stack *x = *(struct km_stack *const *)a, *y = *(struct km_stack *const *)b;

	return frames_cmp(x->frames, x->ev.nr_stack, y->frames, y->ev.nr_stack);
}

/* A stack's index among the texts written (they are sorted by frames, as @v is). */
static void put_map(struct pp_buf *out, const struct km_out *o, const struct km_map *m)
{
	struct km_stack **v = km_collect(m, stack_frames_cmp);
	size_t j = 0;

	pp_wire_put_varint(out, m->nr);
	for (size_t i = 0; i < m->nr; i++) {
		while (frames_cmp(o->v[j]->frames, o->v[j]->nr, v[i]->frames, v[i]->ev.nr_stack))
			j++;
		pp_wire_put_varint(out, j);
		pp_wire_put_varint(out, v[i]->bytes);
		pp_wire_put_varint(out, v[i]->n);
	}
	free(v);
}

static void kmem_state_write(struct ana_te *te, struct pp_buf *out)
{
	struct km_out o = { .buf = PP_BUF_INIT };
	size_t it = 0;
	uint64_t k;
	void *v;

	for (unsigned i = 0; i < te->nr_pairs; i++) {
		const struct km_pair *kp = te->pairs[i]->impl;
		out_map(te, &o, &kp->alloc);
		out_map(te, &o, &kp->free);
	}
	ana_te_state_nodes(te, out_node, &o);
	if (o.nr)
		qsort(o.v, o.nr, sizeof(*o.v), text_cmp);
	pp_wire_put_varint(out, o.nr);
	for (size_t i = 0; i < o.nr; i++) {
		pp_wire_put_varint(out, o.v[i]->nr);
		for (uint32_t j = 0; j < o.v[i]->nr; j++)
			pp_wire_put_varint(out, o.v[i]->frames[j]);
		pp_wire_put_str(out, o.v[i]->text);
	}
	pp_wire_put_varint(out, te->nr_pairs);
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		const struct km_pair *kp = te->pairs[i]->impl;
		pp_wire_put_varint(out, kp->nr_alloc);
		pp_wire_put_varint(out, kp->alloc_bytes);
		pp_wire_put_varint(out, kp->nr_free);
		pp_wire_put_varint(out, kp->free_bytes);
		put_map(out, &o, &kp->alloc);
		put_map(out, &o, &kp->free);
	}
	while (pp_u64map_next(&o.by_hash, &it, &k, &v))
		for (struct km_text *x = v, *next; x; x = next) {
			next = x->next;
			free(x->text);
			free(x);
		}
	pp_u64map_release(&o.by_hash);
	free(o.v);
	pp_buf_release(&o.buf);
}

/* The text of @f kept for the report: the first state's, when two states resolved them. */
static struct km_text *text_keep(struct ana_te *te, const uint64_t *f, uint32_t n, const char *text)
{
	uint64_t h = pp_hash_u64s(f, n);
	struct km_texts *t = te->impl_priv;
	struct km_text *x = text_find(te, f, n, h);
	void **slot;

	if (x)
		return x;
	if (!t)
		t = te->impl_priv = pp_xcalloc(1, sizeof(*t));
	x = text_new(f, n, h, text);
	slot = pp_u64map_slot(&t->by_hash, h);
	x->next = *slot;
	*slot = x;
	t->nr++;
	return x;
}

static int read_texts(struct ana_te *te, struct pp_wire *r, struct km_text ***out, size_t *nr)
{
	size_t nt = pp_wire_count(r, 3, SIZE_MAX, "stack texts");
	struct km_text **v = pp_xcalloc(nt + 1, sizeof(*v));
	uint64_t *f = pp_xmalloc(KM_MAX_FRAMES * sizeof(*f));

	*out = v;
	*nr = 0;
	for (size_t i = 0; i < nt && pp_wire_ok(r); i++) {
		size_t n = pp_wire_count(r, 1, KM_MAX_FRAMES, "frames");
		const char *text;

		for (size_t j = 0; j < n; j++)
			f[j] = pp_wire_varint(r);
		text = pp_wire_str(r);
		if (!pp_wire_ok(r))
			break;
		if (!n || !*text || (i && frames_cmp(v[i - 1]->frames, v[i - 1]->nr, f,
						     (uint32_t)n) >= 0)) {
			pp_wire_fail(r, PP_EBAD_RECORD, "stack text %zu: %zu frames, %s", i, n,
				     !*text ? "no text" : "not after the one before");
			break;
		}
		v[i] = text_keep(te, f, (uint32_t)n, text);
		*nr = i + 1;
	}
	free(f);
	return pp_wire_ok(r) ? 0 : r->err;
}

/* One table of stacks: (index among the texts, bytes, objects), adding up to at most the pair's. */
static int read_map(struct ana_te *te, struct pp_wire *r, struct km_map *m, struct km_text **texts,
		    size_t nt, uint64_t nr_max, uint64_t bytes_max, const char *what)
{
	size_t nr = pp_wire_count(r, 3, nt, what);
	uint64_t objects = 0, bytes = 0, prev = 0;

	for (size_t i = 0; i < nr && pp_wire_ok(r); i++) {
		uint64_t idx = pp_wire_varint(r), b = pp_wire_varint(r);
		uint32_t n = pp_wire_u32(r, "objects");
		struct pp_event ev = { 0 };

		if (!pp_wire_ok(r))
			break;
		if (idx >= nt || (i && idx <= prev) || !n || objects + n > nr_max ||
		    bytes + b < bytes || bytes + b > bytes_max)
			return pp_wire_fail(r, PP_EBAD_RECORD, "%s %zu: text %llu of %zu, %u objects, "
					    "%llu bytes: not within the pair's", what, i,
					    (unsigned long long)idx, nt, n, (unsigned long long)b);
		prev = idx;
		objects += n;
		bytes += b;
		ev.stack = texts[idx]->frames;
		ev.nr_stack = texts[idx]->nr;
		km_add(te, m, &ev, b, n);
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

static int kmem_state_read(struct ana_te *te, struct pp_wire *r)
{
	struct km_text **texts;
	size_t nt;
	uint64_t nr;
	int rc = read_texts(te, r, &texts, &nt);

	nr = rc ? 0 : pp_wire_varint(r);
	if (!rc && pp_wire_ok(r) && nr != te->nr_pairs)
		rc = pp_wire_fail(r, PP_EBAD_RECORD, "%llu pairs, the options make %u",
				  (unsigned long long)nr, te->nr_pairs);
	for (unsigned i = 0; !rc && i < te->nr_pairs && pp_wire_ok(r); i++) {
		struct km_pair *k = te->pairs[i]->impl;
		uint64_t na = pp_wire_varint(r), ba = pp_wire_varint(r);
		uint64_t nf = pp_wire_varint(r), bf = pp_wire_varint(r);
		bool paired = te->pairs[i]->tp2;

		if (!pp_wire_ok(r))
			break;
		if ((paired ? nf != na || bf != ba : nf || bf) ||
		    k->nr_alloc + na < na || k->alloc_bytes + ba < ba) {
			rc = pp_wire_fail(r, PP_EBAD_RECORD, "pair %u: %llu objects of %llu bytes "
					  "allocated, %llu of %llu freed", i, (unsigned long long)na,
					  (unsigned long long)ba, (unsigned long long)nf,
					  (unsigned long long)bf);
			break;
		}
		k->nr_alloc += na;
		k->alloc_bytes += ba;
		k->nr_free += nf;
		k->free_bytes += bf;
		rc = read_map(te, r, &k->alloc, texts, nt, na, ba, "alloc stack");
		if (!rc)
			rc = read_map(te, r, &k->free, texts, nt, nf, bf, "free stack");
	}
	free(texts);
	if (!rc && !pp_wire_ok(r))
		rc = r->err;
	return rc;
}

const struct te_impl_ops ana_te_kmemprof_ops = {
	.name = "kmemprof",
	.state_write = kmem_state_write,
	.state_read = kmem_state_read,
	.init = kmem_init,
	.two = kmem_two,
	.remaining = kmem_remaining,
	.print = kmem_print,
	.release = kmem_release,
};
