/* SPDX-License-Identifier: MIT */
/*
 * twoevent-state.c - the engine's latency table as mergeable state.
 *
 * A row (instance, id) holds calls, total, min, max, than, err and, for the
 * tables with percentiles, its values: the first TE_LAT_EXACT exactly, then a
 * struct pp_hist of all of them.  Two rows add as the replay would have
 * added the second's values to the first: the values stay exact while both
 * together are TE_LAT_EXACT or fewer, else everything goes into the histogram,
 * which merges bucket by bucket - so every percentile of the merge is the
 * one-pass percentile, not an approximation of it.  What was left unmatched
 * at the end (a system call still open) is counted first, as ->finish()
 * counts it.  Not here: calls open across two ranges of a capture (they are
 * counted in the first range up to its end, as a replay of it would).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/log.h"
#include "common/wire.h"

#define LATF_HIST 1u		/* the row keeps its values (percentiles) */
#define LATF_IN_HIST 2u		/* ... in a histogram, else exactly */

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
		for (uint64_t i = 0; i < l->n; i++)
			pp_wire_put_varint(b, l->exact[i]);
}

static int state_write(struct ana_te *te, struct pp_buf *out)
{
	struct te_lat **v;
	size_t nr;

	ana_te_settle(te);	/* what ->finish() counts before it prints */
	pp_wire_put_varint(out, te->recent_ns);
	v = ana_te_lat_collect(te, &nr, false);	/* by instance, then id: canonical */
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++)
		put_lat(out, v[i]);
	free(v);
	return 0;
}

/* The row (@ins, @id), made empty when new. */
static struct te_lat *lat_get(struct ana_te *te, uint64_t ins, uint64_t id, bool hist)
{
	void **oslot = pp_u64map_slot(&te->lat, ins);
	struct pp_u64map *inner = *oslot;
	void **slot;
	struct te_lat *l;

	if (!inner)
		inner = *oslot = pp_xcalloc(1, sizeof(*inner));
	slot = pp_u64map_slot(inner, id);
	l = *slot;
	if (!l) {
		l = *slot = pp_xcalloc(1, sizeof(*l));
		l->ins = ins;
		l->id = id;
		l->min = UINT64_MAX;
		l->has_hist = hist;
		te->nr_lat++;
	}
	return l;
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
	l = lat_get(te, ins, id, flags & LATF_HIST);
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

static int state_read(struct ana_te *te, struct pp_wire *r)
{
	uint64_t recent = pp_wire_varint(r);
	size_t nr = pp_wire_count(r, 9, SIZE_MAX, "latency rows");
	int rc;

	if (!pp_wire_ok(r))
		return r->err;
	if (recent > te->recent_ns)
		te->recent_ns = recent;
	for (size_t k = 0; k < nr; k++) {
		rc = read_row(te, r, k);
		if (rc)
			return rc;
	}
	return 0;
}

int ana_te_state_check(struct ana_te *te)
{
	const char *what = te->than_ns ? "--than" : te->lower_ns ? "--lower" :
			   te->only_than ? "--only-than" : te->detail.enabled ? "--detail" :
			   te->az->opt.verbose ? "-v" : NULL;

	if (!what || !ana_state_recording(te->az))
		return 0;
	pp_err("%s: %s with --state-out: it prints events as they come, and a state holds the "
	       "table only (replay the capture for them)", te->az->name, what);
	return PP_EUSAGE;
}

int ana_te_az_state_write(struct pp_az *az, struct pp_buf *out)
{
	return az->engine ? state_write(az->engine, out) : PP_ENOTSUP;
}

int ana_te_az_state_read(struct pp_az *az, struct pp_wire *in)
{
	return az->engine ? state_read(az->engine, in) : PP_ENOTSUP;
}
