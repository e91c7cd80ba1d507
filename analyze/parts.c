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
 * T(1 - (1-skim)^k)/skim records' worth of skim plus its own, = T).
 *
 * With side-band digests what lies before a part costs next to nothing, and the threads
 * share out more parts than there are threads as they go (parallel.c): each thread's
 * share of the records, in parts that shrink by PARTS_SHRINK, the largest first - few
 * parts to open, and small ones at the end, when whoever is done first takes what is left.
 * Pure logic: the unit suite parts checks it.
 */
#include "analyze/internal.h"

#define PARTS_SHRINK 0.65
#define PARTS_PER_JOB 6
#define PART_MIN_SEGS 64	/* events segments a part at least, on average */
#define PART_SB_RATIO 25	/* events records a part at least, per USYMS record */

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

/*
 * Cut before the events segment nearest to each cumulative share @cum[k] of the records
 * (k < @want - 1), where the times do not touch.  Return: the number of parts.
 */
static size_t cut(const struct ppf_index_entry *segs, const size_t *ev, size_t nev,
		  const double *cum, size_t want, uint64_t t0, uint64_t t1, struct ana_part *parts)
{
	double total = 0, done = 0;
	size_t k = 0, at = 0;

	for (size_t j = 0; j < nev; j++)
		total += segs[ev[j]].nr_records;
	parts[0] = (struct ana_part){
		.from_off = t0 && nev ? segs[ev[0]].offset : 0,
		.start_ns = t0,
	};
	for (size_t j = 0; j < nev; j++) {
		const struct ppf_index_entry *e = &segs[ev[j]];

		/* a cut before segment j: only where the times do not touch */
		if (k + 1 < want && j > at && segs[ev[j - 1]].last_ns < e->first_ns && e->first_ns > t0 &&
		    done + e->nr_records / 2.0 > cum[k] * total) {
			parts[k].to_off = e->offset;
			parts[k].end_ns = e->first_ns - 1;
			k++;
			parts[k] = (struct ana_part){ .from_off = e->offset, .start_ns = e->first_ns };
			at = j;
		}
		parts[k].records += e->nr_records;
		done += e->nr_records;
	}
	parts[k].to_off = 0;
	parts[k].end_ns = t1;
	return k + 1;
}

size_t ana_parts_split(const struct ppf_index_entry *segs, size_t nr, unsigned jobs, double skim,
		       uint64_t t0, uint64_t t1, struct ana_part *parts)
{
	size_t *ev = pp_xcalloc(nr + 1, sizeof(*ev));
	size_t nev = events_in(segs, nr, t0, t1, ev);
	double *cum = pp_xcalloc(jobs + 1, sizeof(*cum)), keep = 1, w, sum = 0, norm;

	if (!jobs)
		jobs = 1;
	if (skim < 0 || skim >= 1)
		skim = 0;
	/* part k's share: (1-skim)^k, normalized; the sum of those before k+1 is cum[k] */
	for (unsigned i = 0; i < jobs; i++)
		keep *= 1 - skim;
	norm = skim > 0 ? skim / (1 - keep) : 1.0 / jobs;
	w = norm;
	for (unsigned i = 0; i < jobs; i++) {
		sum += w;
		cum[i] = sum;
		w *= 1 - skim;
	}
	size_t n = cut(segs, ev, nev, cum, jobs, t0, t1, parts);
	free(cum);
	free(ev);
	return n;
}

size_t ana_parts_split_shared(const struct ppf_index_entry *segs, size_t nr, unsigned jobs,
			      unsigned per_job, uint64_t t0, uint64_t t1, struct ana_part *parts)
{
	size_t *ev = pp_xcalloc(nr + 1, sizeof(*ev));
	size_t nev = events_in(segs, nr, t0, t1, ev), want;
	double *cum, wsum = 0, w = 1, done = 0;

	if (!jobs)
		jobs = 1;
	if (!per_job)
		per_job = 1;
	want = (size_t)jobs * per_job;
	cum = pp_xcalloc(want + 1, sizeof(*cum));
	for (unsigned i = 0; i < per_job; i++, w *= PARTS_SHRINK)
		wsum += w;
	for (unsigned r = 0; r < jobs; r++) {
		w = 1;
		for (unsigned i = 0; i < per_job; i++, w *= PARTS_SHRINK) {
			done += w / wsum / jobs;
			cum[r * per_job + i] = done;
		}
	}
	size_t n = cut(segs, ev, nev, cum, want, t0, t1, parts);
	free(cum);
	free(ev);
	return n;
}

unsigned ana_parts_per_job(const struct ppf_index_entry *segs, size_t nr, unsigned jobs,
			   bool digests)
{
	size_t nr_events_segs = 0, fit, sb_fit;
	uint64_t events = 0, usyms = 0;

	if (!digests)
		return 1;
	if (!jobs)
		jobs = 1;
	for (size_t i = 0; i < nr; i++) {
		if (segs[i].kind == PPF_SEG_EVENTS) {
			nr_events_segs++;
			events += segs[i].nr_records;
		} else if (segs[i].kind == PPF_SEG_USYMS) {
			usyms += segs[i].nr_records;
		}
	}
	fit = nr_events_segs / ((size_t)jobs * PART_MIN_SEGS);
	sb_fit = usyms ? events / (usyms * PART_SB_RATIO * jobs) : SIZE_MAX;
	if (sb_fit < fit)
		fit = sb_fit;
	return fit >= PARTS_PER_JOB ? PARTS_PER_JOB : fit ? (unsigned)fit : 1;
}
