/* SPDX-License-Identifier: MIT */
/*
 * twoevent-state.c - the two-event engine as mergeable state (docs/state-format.md
 * "the latency engine"), shared by its analyzers: multi-trace, rundelay,
 * syscalls, nested-trace, kmemprof.
 *
 * The section holds the engine's latest time, its implementation's aggregate
 * and, per capture range, its edges (twoevent-edge.c).  The aggregates:
 * delay and syscalls keep latency rows (instance, id): calls, total, min,
 * max, than, err and, for the tables with percentiles, the values - the
 * first TE_LAT_EXACT exactly, then a struct pp_hist of all of them.  Two rows
 * add as the replay would have added the second's values to the first: the
 * values stay exact while both together are TE_LAT_EXACT or fewer, else
 * everything goes into the histogram, which merges bucket by bucket - so
 * every percentile of the merge is the one-pass percentile, not an
 * approximation of it.  pair keeps its paired and unpaired counts.  What is
 * left unmatched at a range's end is not counted here but kept as the range's
 * tails: joined with the next range, or counted by the report as ->finish()
 * counts it.  kmemprof's aggregate is its own (twoevent-kmem.c); call and
 * call-delay have none and refuse --state-out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/log.h"
#include "common/wire.h"

#define LATF_HIST 1u		/* the row keeps its values (percentiles) */
#define LATF_IN_HIST 2u		/* ... in a histogram, else exactly */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A row's exact values, ascending: the same bytes whatever order they were added in. */
static void put_exact(struct pp_buf *b, const struct te_lat *l)
{
	uint64_t v[TE_LAT_EXACT];

	memcpy(v, l->exact, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), cmp_u64);
	for (uint64_t i = 0; i < l->n; i++)
		pp_wire_put_varint(b, v[i]);
}

static void put_lat(struct pp_buf *b, const struct te_lat *l)
{
	pp_wire_put_varint(b, l->ins);
	pp_wire_put_varint(b, l->id);
	pp_wire_put_varint(b, l->n);
	pp_wire_put_varint(b, l->sum);
	pp_wire_put_varint(b, l->min);
	pp_wire_put_varint(b, l->max);
	pp_wire_put_varint(b, l->than);
	pp_wire_put_varint(b, l->err);
	pp_wire_put_varint(b, (l->has_hist ? LATF_HIST : 0) | (l->in_hist ? LATF_IN_HIST : 0));
	if (l->in_hist)
		pp_wire_put_hist(b, &l->hist);
	else if (l->has_hist)
		put_exact(b, l);
}

void ana_te_lat_state_write(struct ana_te *te, struct pp_buf *out)
{
	struct te_lat **v;
	size_t nr;

	v = ana_te_lat_collect(te, &nr, false);	/* by instance, then id: canonical */
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++)
		put_lat(out, v[i]);
	free(v);
}

static void to_hist(struct te_lat *l)
{
	if (l->in_hist)
		return;
	pp_hist_init(&l->hist);
	for (uint64_t i = 0; i < l->n && i < TE_LAT_EXACT; i++)
		pp_hist_add(&l->hist, l->exact[i]);
	l->in_hist = true;
}

static int read_row(struct ana_te *te, struct pp_wire *r, size_t k)
{
	uint64_t ins = pp_wire_varint(r), id = pp_wire_varint(r), n = pp_wire_varint(r);
	uint64_t sum = pp_wire_varint(r), min = pp_wire_varint(r), max = pp_wire_varint(r);
	uint64_t than = pp_wire_varint(r), err = pp_wire_varint(r), flags = pp_wire_varint(r);
	uint64_t exact[TE_LAT_EXACT];
	struct pp_hist h;
	struct te_lat *l;
	int rc;

	if (!pp_wire_ok(r))
		return r->err;
	if (!n || min > max || flags > (LATF_HIST | LATF_IN_HIST) ||
	    flags == LATF_IN_HIST || than > n || err > n)
		return pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: %llu calls, min %llu, max "
				    "%llu, flags %llu", k, (unsigned long long)n,
				    (unsigned long long)min, (unsigned long long)max,
				    (unsigned long long)flags);
	if (id >= te->nr_pairs && te->impl_id != ANA_TE_SYSCALLS)
		return pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: pair %llu of %u", k,
				    (unsigned long long)id, te->nr_pairs);
	if ((flags & LATF_HIST) && !(flags & LATF_IN_HIST)) {
		if (n > TE_LAT_EXACT)
			return pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: %llu exact values",
					    k, (unsigned long long)n);
		for (uint64_t i = 0; i < n; i++) {
			exact[i] = pp_wire_varint(r);
			if (pp_wire_ok(r) && (exact[i] < min || exact[i] > max))
				return pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: a value "
						    "outside [min, max]", k);
		}
	}
	pp_hist_init(&h);
	if (flags & LATF_IN_HIST) {
		rc = pp_wire_hist(r, &h);
		if (!rc && (h.count != n || h.min != min || h.max != max))
			rc = pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: its histogram is not "
					  "its calls, min and max", k);
		if (rc) {
			pp_hist_release(&h);
			return rc;
		}
	}
	if (!pp_wire_ok(r))
		return r->err;
	l = ana_te_lat_get(te, ins, id, flags & LATF_HIST);
	if (l->has_hist != !!(flags & LATF_HIST)) {
		pp_hist_release(&h);
		return pp_wire_fail(r, PP_EBAD_RECORD, "latency row %zu: with and without values", k);
	}
	if (l->has_hist) {
		/* exact while the two together fit, as the replay keeps them */
		if (!l->in_hist && !(flags & LATF_IN_HIST) && l->n + n <= TE_LAT_EXACT) {
			memcpy(l->exact + l->n, exact, n * sizeof(*exact));
		} else {
			to_hist(l);
			if (flags & LATF_IN_HIST)
				pp_hist_merge(&l->hist, &h);
			else
				for (uint64_t i = 0; i < n; i++)
					pp_hist_add(&l->hist, exact[i]);
		}
	}
	pp_hist_release(&h);
	l->n += n;
	l->sum += sum;
	if (min < l->min)
		l->min = min;
	if (max > l->max)
		l->max = max;
	l->than += than;
	l->err += err;
	return 0;
}

int ana_te_lat_state_read(struct ana_te *te, struct pp_wire *r)
{
	size_t nr = pp_wire_count(r, 9, SIZE_MAX, "latency rows");
	int rc;

	for (size_t k = 0; k < nr && pp_wire_ok(r); k++) {
		rc = read_row(te, r, k);
		if (rc)
			return rc;
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

void ana_te_pair_state_write(struct ana_te *te, struct pp_buf *out)
{
	pp_wire_put_varint(out, te->nr_pairs);
	for (unsigned i = 0; i < te->nr_pairs; i++) {
		pp_wire_put_varint(out, te->pairs[i]->paired);
		pp_wire_put_varint(out, te->pairs[i]->unpaired);
	}
}

int ana_te_pair_state_read(struct ana_te *te, struct pp_wire *r)
{
	uint64_t nr = pp_wire_varint(r);

	if (pp_wire_ok(r) && nr != te->nr_pairs)
		return pp_wire_fail(r, PP_EBAD_RECORD, "%llu pairs, the options make %u",
				    (unsigned long long)nr, te->nr_pairs);
	for (unsigned i = 0; i < te->nr_pairs && pp_wire_ok(r); i++) {
		uint64_t paired = pp_wire_varint(r), unpaired = pp_wire_varint(r);
		struct te_pair *p = te->pairs[i];
		if (pp_wire_ok(r) && ((p->tp2 ? unpaired : paired) ||
				      p->paired + paired < paired || p->unpaired + unpaired < unpaired))
			return pp_wire_fail(r, PP_EBAD_RECORD, "pair %u: %llu paired, %llu unpaired",
					    i, (unsigned long long)paired,
					    (unsigned long long)unpaired);
		p->paired += paired;
		p->unpaired += unpaired;
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

/* struct te_edge through the untyped edges of analyze/state (state.h). */
static void *edge_new(void)
{
	return ana_te_edge_new();
}

static int edge_read(void *te, struct pp_wire *in, void *e)
{
	return ana_te_edge_read(te, in, e);
}

static void edge_join(void *te, void *a, void *b)
{
	ana_te_edge_join(te, a, b);
}

static void edge_free(void *te, void *e)
{
	ana_te_edge_free(te, e);
}

void ana_te_edges_release(struct ana_te *te)
{
	ana_edges_release(&te->edges, edge_free, te);
}

static int state_write(struct ana_te *te, struct pp_buf *out)
{
	const unsigned *ids;
	size_t n = ana_state_sources(te->az, &ids);
	struct te_edge none = { 0 };

	pp_wire_put_varint(out, te->recent_ns);
	te->impl->state_write(te, out);
	if (te->rec) {		/* after a replay: its heads, and its backups as tails */
		te->rec->recent_ns = te->recent_ns;
		ana_te_edge_set_running(te->rec, te->running, te->nr_running);
		pp_wire_put_varint(out, 1);
		ana_te_edge_put(te, out, te->rec, &te->backup);
		return 0;
	}
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct te_edge *e = ana_edges_get(&te->edges, ids[i]);
		ana_te_edge_put(te, out, e ? e : &none, e ? &e->tails : &none.tails);
	}
	return 0;
}

void ana_te_state_nodes(struct ana_te *te,
			void (*fn)(struct ana_te *te, const struct te_node *n, void *arg), void *arg)
{
	const unsigned *ids;
	size_t n;

	if (te->rec) {
		ana_te_edge_nodes(te, te->rec, &te->backup, fn, arg);
		return;
	}
	n = ana_state_sources(te->az, &ids);
	for (size_t i = 0; i < n; i++) {
		const struct te_edge *e = ana_edges_get(&te->edges, ids[i]);
		if (e)
			ana_te_edge_nodes(te, e, &e->tails, fn, arg);
	}
}

static int state_read(struct pp_az *az, struct ana_te *te, struct pp_wire *r)
{
	uint64_t recent = pp_wire_varint(r);
	int rc;

	if (!pp_wire_ok(r))
		return r->err;
	if (recent > te->recent_ns)
		te->recent_ns = recent;
	rc = te->impl->state_read(te, r);
	if (rc)
		return rc;
	return ana_edges_read(az, r, &te->edges, 5, edge_new, edge_read, te);
}

int ana_te_state_check(struct ana_te *te)
{
	const char *what = te->than_ns ? "--than" : te->lower_ns ? "--lower" :
			   te->only_than ? "--only-than" : te->detail.enabled ? "--detail" :
			   te->az->opt.verbose ? "-v" : NULL;
	const char *name = te->az->name;

	if (!ana_state_recording(te->az))
		return 0;
	if (what) {
		pp_err("%s: %s with --state-out: it prints events as they come, and a state holds "
		       "the table only (replay the capture for them)", name, what);
		return PP_EUSAGE;
	}
	if (te->impl_id == ANA_TE_CALL || te->impl_id == ANA_TE_CALL_DELAY) {
		pp_err("%s: --impl %s with --state-out: its call tree is printed whenever it "
		       "changes, a sequence in time order that stays single-stream (use --impl "
		       "delay, or replay the capture)", name, te->impl->name);
		return PP_EUSAGE;
	}
	if (!te->impl->state_write) {
		pp_err("%s: --impl %s has no mergeable state (yet); delay, pair, syscalls and kmemprof have",
		       name, te->impl->name);
		return PP_EUSAGE;
	}
	for (unsigned i = 0; i < te->nr_tps; i++) {
		const struct te_tp *tp = &te->tps[i];
		if (tp->trigger || (tp->stack && te->impl_id == ANA_TE_PAIR)) {
			pp_err("%s: %s of %s with --state-out: it prints events as they come, a "
			       "sequence in time order that stays single-stream", name,
			       tp->trigger ? "trigger" : "a stack", tp->name);
			return PP_EUSAGE;
		}
	}
	return 0;
}

bool ana_te_stateful(const struct ana_te *te)
{
	return te->rec || te->edges.v;
}

int ana_te_az_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct ana_te *te = az->engine;

	return te && te->impl->state_write ? state_write(te, out) : PP_ENOTSUP;
}

int ana_te_az_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct ana_te *te = az->engine;

	return te && te->impl->state_read ? state_read(az, te, in) : PP_ENOTSUP;
}

void ana_te_az_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct ana_te *te = az->engine;

	if (te)
		ana_edges_join(&te->edges, before, after, edge_new, edge_join, te);
}
