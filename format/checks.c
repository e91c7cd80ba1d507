/* SPDX-License-Identifier: MIT */
/*
 * checks.c - which segments of one capture passed their checksum, noted by the readers of a
 * parallel replay's parts for each other.
 *
 * A part's reader takes the side band of the segments before its window from the digests
 * after them, but first checks that each such segment's payload matches its checksum, as
 * one pass would (a damaged segment's side band is lost to one pass, and must be to the
 * part).  With several parts a thread every segment would be read and checked by every
 * part after it; with this record, by one reader: the part whose window holds it, or the
 * first part after it to get there.  Only passes are noted (a failure is found again by
 * whoever reads the segment); lock-free, one byte a segment.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "format/internal.h"

struct ppf_checks {
	uint64_t *off;			/* the segments' offsets, ascending */
	_Atomic unsigned char *passed;
	size_t nr;
};

struct ppf_checks *ppf_checks_new(const struct ppf_index_entry *segs, size_t nr)
{
	struct ppf_checks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->off = malloc((nr ? nr : 1) * sizeof(*c->off));
	c->passed = calloc(nr ? nr : 1, sizeof(*c->passed));
	if (!c->off || !c->passed) {
		ppf_checks_free(c);
		return NULL;
	}
	for (size_t i = 0; i < nr; i++) {
		if (i && segs[i].offset <= c->off[c->nr - 1])
			continue;	/* not ascending: ppf_reader_segments() never gives that */
		c->off[c->nr++] = segs[i].offset;
	}
	return c;
}

void ppf_checks_free(struct ppf_checks *c)
{
	if (!c)
		return;
	free(c->off);
	free((void *)c->passed);
	free(c);
}

/* The slot of the segment at @off, or -1. */
static ptrdiff_t slot(const struct ppf_checks *c, uint64_t off)
{
	size_t lo = 0, hi = c->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nr && c->off[lo] == off ? (ptrdiff_t)lo : -1;
}

void ppf_checks_pass(struct ppf_checks *c, uint64_t off)
{
	ptrdiff_t i = slot(c, off);

	if (i >= 0)
		atomic_store_explicit(&c->passed[i], 1, memory_order_relaxed);
}

bool ppf_checks_passed(const struct ppf_checks *c, uint64_t off)
{
	ptrdiff_t i = slot(c, off);

	return i >= 0 && atomic_load_explicit(&c->passed[i], memory_order_relaxed);
}
