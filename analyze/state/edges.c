/* SPDX-License-Identifier: MIT */
/*
 * edges.c - what each capture range of a state left open at its ends, per source
 * id, and the join of two adjacent ranges' (state.h "A state's edges").
 *
 * A state read keeps one edge per source; state_join(before, after) completes
 * what crossed the boundary and leaves one edge, @before's, for the joined range.
 * For the common kind (struct ana_edge) the join is always the same walk:
 *   each head of @after meets @before's tail of its key (the analyzer counts
 *   what a replay would have counted there); a head that found nothing and is
 *   @before's first of its key goes further back, as the joined range's head;
 *   a loss in @after drops the tails @before left (a replay would have too);
 *   @after's tails are the joined range's.
 * Not here: the bytes of an edge (each analyzer's state_write/state_read).
 */
#include <stdlib.h>

#include "analyze/state/state.h"
#include "common/err.h"
#include "common/log.h"
#include "common/wire.h"

void *ana_edges_get(const struct ana_edges *t, unsigned id)
{
	return id < t->nr ? t->v[id] : NULL;
}

int ana_edges_read(struct pp_az *az, struct pp_wire *in, struct ana_edges *t, size_t min_sz,
		   void *(*new_fn)(void),
		   int (*read_fn)(void *arg, struct pp_wire *in, void *edge), void *arg)
{
	size_t n = pp_wire_count(in, min_sz, SIZE_MAX, "sources");

	for (size_t i = 0; i < n && pp_wire_ok(in); i++) {
		unsigned id;
		int rc;

		if (!ana_state_source_in(az, in, i, &id))
			return in->err;
		t->v = pp_xgrow(t->v, &t->nr, (size_t)id + 1, sizeof(*t->v));
		if (t->v[id])
			return pp_wire_fail(in, PP_EBAD_RECORD, "source %zu twice", i);
		t->v[id] = new_fn();
		if ((rc = read_fn(arg, in, t->v[id])))
			return rc;
	}
	return pp_wire_ok(in) ? 0 : in->err;
}

void ana_edges_join(struct ana_edges *t, unsigned before, unsigned after, void *(*new_fn)(void),
		    void (*join_fn)(void *arg, void *a, void *b), void *arg)
{
	void *b;

	t->v = pp_xgrow(t->v, &t->nr, (size_t)(before > after ? before : after) + 1,
			sizeof(*t->v));
	if (!t->v[before])
		t->v[before] = new_fn();
	b = t->v[after] ? t->v[after] : new_fn();
	t->v[after] = NULL;
	join_fn(arg, t->v[before], b);
}

void ana_edges_release(struct ana_edges *t, void (*free_fn)(void *arg, void *edge), void *arg)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i])
			free_fn(arg, t->v[i]);
	free(t->v);
	t->v = NULL;
	t->nr = 0;
}

/* --- struct ana_edge ------------------------------------------------------------------ */

static void *edge_new(void)
{
	return pp_xcalloc(1, sizeof(struct ana_edge));
}

static void edge_free(void *arg, void *edge)
{
	struct ana_edge *e = edge;

	(void)arg;
	pp_u64map_free_all(&e->heads);
	pp_u64map_free_all(&e->tails);
	free(e);
}

const struct ana_edge *ana_edge_of(const struct ana_edges *t, unsigned id)
{
	static const struct ana_edge none;
	const struct ana_edge *e = ana_edges_get(t, id);

	return e ? e : &none;
}

/* The analyzer's reader of one edge, through ana_edges_read()'s @arg. */
struct edge_reader {
	int (*fn)(struct pp_wire *in, struct ana_edge *e);
};

static int edge_read(void *arg, struct pp_wire *in, void *edge)
{
	const struct edge_reader *r = arg;

	return r->fn(in, edge);
}

int ana_edge_read(struct pp_az *az, struct pp_wire *in, struct ana_edges *t, size_t min_sz,
		  int (*read_fn)(struct pp_wire *in, struct ana_edge *e))
{
	struct edge_reader r = { read_fn };

	return ana_edges_read(az, in, t, min_sz, edge_new, edge_read, &r);
}

struct edge_meet {
	ana_edge_meet_fn fn;
	void *arg;
};

/* Complete @b from @a, then free it (the walk in this file's header). */
static void edge_join(void *arg, void *edge_a, void *edge_b)
{
	const struct edge_meet *m = arg;
	struct ana_edge *a = edge_a, *b = edge_b;
	size_t n;
	uint64_t *keys = pp_u64map_keys(&b->heads, &n);

	for (size_t i = 0; i < n; i++) {
		void *h = pp_u64map_del(&b->heads, keys[i]);
		void *tail = pp_u64map_del(&a->tails, keys[i]);

		if (m->fn(m->arg, keys[i], h, tail) && !a->lost &&
		    !pp_u64map_get(&a->heads, keys[i]))
			pp_u64map_put(&a->heads, keys[i], h);
		else
			free(h);
		free(tail);
	}
	free(keys);
	if (b->lost) {
		keys = pp_u64map_keys(&a->tails, &n);
		for (size_t i = 0; i < n; i++)
			free(pp_u64map_del(&a->tails, keys[i]));
		free(keys);
		a->lost = true;
	}
	keys = pp_u64map_keys(&b->tails, &n);
	for (size_t i = 0; i < n; i++) {
		free(pp_u64map_del(&a->tails, keys[i]));
		pp_u64map_put(&a->tails, keys[i], pp_u64map_del(&b->tails, keys[i]));
	}
	free(keys);
	if (b->end_ns > a->end_ns)
		a->end_ns = b->end_ns;
	edge_free(NULL, b);
}

void ana_edge_join(struct ana_edges *t, unsigned before, unsigned after, ana_edge_meet_fn meet,
		   void *arg)
{
	struct edge_meet m = { meet, arg };

	ana_edges_join(t, before, after, edge_new, edge_join, &m);
}

void ana_edge_release(struct ana_edges *t)
{
	ana_edges_release(t, edge_free, NULL);
}
