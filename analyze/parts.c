/* SPDX-License-Identifier: MIT */
/*
 * parts.c - where a parallel replay (-j N) cuts a capture into parts.
 *
 * A part is a run of EVENTS segments read whole by one thread, after that
 * thread has read the side band of every segment before it (skimming: the
 * segments are decompressed, their SAMPLEs skipped; docs/capture-format.md
 * "Reading a capture in parts").  A cut goes only between two EVENTS segments
 * whose times do not touch (the first's last_ns < the second's first_ns), so
 * that the parts are --time ranges of the capture that share no nanosecond:
 * part k holds [its first segment's first_ns, the next part's - 1], the
 * first part from the analysed range's start, the last to its end.
 *
 * A part's thread pays for the skim of what lies before it, so the parts are
 * not equal: with a skim costing @skim of a full replay per record, parts of
 * T, T(1-skim), T(1-skim)^2 ... records end at the same time (part k reads
 * T(1 - (1-skim)^k)/skim records' worth of skim plus its own, = T).  Pure
 * logic: the unit suite parts checks it.
 */
#include "analyze/internal.h"

/* The EVENTS segments of the analysed range [@t0, @t1] (0 = open), by index into @segs. */
static size_t events_in(const struct ppf_index_entry *segs, size_t nr, uint64_t t0, uint64_t t1,
			size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct ppf_index_entry *e = &segs[i];

		if (e->kind != PPF_SEG_EVENTS || !e->nr_records)
			continue;
		if ((t0 && e->last_ns < t0) || (t1 && e->first_ns > t1))
			continue;
		idx[n++] = i;
	}
	return n;
}

size_t ana_parts_split(const struct ppf_index_entry *segs, size_t nr, unsigned jobs, double skim,
		       uint64_t t0, uint64_t t1, struct ana_part *parts)
{
	size_t *ev = pp_xcalloc(nr + 1, sizeof(*ev));
	size_t nev = events_in(segs, nr, t0, t1, ev);
	double total = 0, t, want, done = 0, w, keep = 1;
	size_t k = 0, cut = 0;

	if (!jobs)
		jobs = 1;
	if (skim < 0 || skim >= 1)
		skim = 0;
	for (size_t j = 0; j < nev; j++)
		total += segs[ev[j]].nr_records;
	/* part 0's size T: the sum of T(1-skim)^k over the parts is the total */
	for (unsigned i = 0; i < jobs; i++)
		keep *= 1 - skim;
	t = skim > 0 ? total * skim / (1 - keep) : total / jobs;
	parts[0] = (struct ana_part){
		.from_off = t0 && nev ? segs[ev[0]].offset : 0,
		.start_ns = t0,
	};
	want = t;
	w = t;
	for (size_t j = 0; j < nev && k + 1 < jobs; j++) {
		const struct ppf_index_entry *e = &segs[ev[j]];

		/* a cut before segment j: only where the times do not touch */
		if (j > cut && segs[ev[j - 1]].last_ns < e->first_ns && e->first_ns > t0 &&
		    done + e->nr_records / 2.0 > want) {
			parts[k].to_off = e->offset;
			parts[k].end_ns = e->first_ns - 1;
			k++;
			parts[k] = (struct ana_part){ .from_off = e->offset, .start_ns = e->first_ns };
			cut = j;
			w *= 1 - skim;
			want += w;
		}
		done += e->nr_records;
	}
	parts[k].to_off = 0;
	parts[k].end_ns = t1;
	free(ev);
	return k + 1;
}
