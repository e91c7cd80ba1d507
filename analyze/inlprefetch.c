/* SPDX-License-Identifier: MIT */
/*
 * inlprefetch.c - the DWARF of a capture's binaries opened ahead of the replay.
 *
 * Inline frames come from the binaries' debug files (common/dwinline.h), and opening one
 * and inflating what its lookups need can cost more than a part's whole replay: libc's
 * compressed DWARF is 7 MB inflated.  Left to the replay, the first sample with a libc frame
 * opens it, and with -j every other part that meets one waits.  So as soon as the capture
 * is open, when an analyzer will show inline frames (its inline_dir hook) and the analysis
 * may run in parts (-j N), one more thread reads the capture's binaries (its USYMS
 * segments: DSO records, a few KB), opens their DWARF and inflates it ahead of the lookups
 * (which otherwise inflate as far as they need), while the main thread reads the metadata
 * (the kernel's symbols) and opens the parts; once the parts start it inflates no more,
 * for they want every CPU.  A -j replay whose analyzers did not ask so early starts one as
 * it opens its parts.  A perf.data or trace.dat converted whole is read from its converted
 * capture; one converted as it is read (standard input) is not opened ahead.  The answers
 * are the same either way: only when a file is opened and inflated changes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/dwinline.h"
#include "common/log.h"

/* binaries opened at most: a system-wide capture names hundreds, most never in a stack */
#define PREFETCH_MAX 32

struct ana_inl_prefetch {
	pthread_t th;
	char *path;
	struct pp_inl **inls;
	size_t nr_inls;
	char *bids[PREFETCH_MAX];
	char *paths[PREFETCH_MAX];
	uint32_t nr_syms[PREFETCH_MAX];
	size_t nr;
	bool too_many;
	bool stop;			/* asked to open no more (__atomic) */
	bool settled;			/* asked to inflate no more ahead (__atomic) */
};

/* Collect the binaries with a build id that the USYMS segments of @p->path name. */
static void read_binaries(struct ana_inl_prefetch *p)
{
	struct ppf_reader *r;
	struct ppf_record rec;

	if (ppf_reader_open(p->path, 0, &r)) {
		ppf_reader_close(r);	/* it holds the message: none wanted here */
		return;
	}
	ppf_reader_pass_over(r, 1u << PPF_SEG_EVENTS | 1u << PPF_SEG_KSYMS | 1u << PPF_SEG_STATS |
				       1u << PPF_SEG_DIGEST,
			     UINT64_MAX);
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		const struct ppf_dso *d = &rec.u.dso;
		char *hex;

		if (rec.type != PPF_REC_DSO || !d->build_id_sz || !d->path ||
		    d->build_id_sz > PP_SYM_MAX_BUILD_ID ||
		    (d->flags & (PPF_DSO_JITMAP | PPF_DSO_KERNEL_MODULE)))
			continue;
		if (p->nr == PREFETCH_MAX) {
			p->too_many = true;
			break;
		}
		hex = pp_xmalloc(2 * d->build_id_sz + 1);
		for (uint32_t i = 0; i < d->build_id_sz; i++)
			snprintf(hex + 2 * i, 3, "%02x", d->build_id[i]);
		p->bids[p->nr] = hex;
		p->nr_syms[p->nr] = d->nr_syms;
		p->paths[p->nr++] = pp_xstrdup(d->path);
	}
	ppf_reader_close(r);
}

/* The binaries with the most symbols first: their DWARF is the largest, and wanted soonest. */
static void order_binaries(struct ana_inl_prefetch *p)
{
	for (size_t i = 1; i < p->nr; i++)
		for (size_t j = i; j > 0 && p->nr_syms[j] > p->nr_syms[j - 1]; j--) {
			char *b = p->bids[j], *q = p->paths[j];
			uint32_t n = p->nr_syms[j];

			p->bids[j] = p->bids[j - 1];
			p->paths[j] = p->paths[j - 1];
			p->nr_syms[j] = p->nr_syms[j - 1];
			p->bids[j - 1] = b;
			p->paths[j - 1] = q;
			p->nr_syms[j - 1] = n;
		}
}

static void *prefetch_main(void *arg)
{
	struct ana_inl_prefetch *p = arg;

	read_binaries(p);
	order_binaries(p);
	pp_debug(2, "the DWARF of %zu binaries opened ahead of the replay%s", p->nr,
		 p->too_many ? ": too many, none" : "");
	for (size_t i = 0; !p->too_many && i < p->nr && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED);
	     i++)
		for (size_t k = 0; k < p->nr_inls; k++)
			pp_inl_prefetch(p->inls[k], p->bids[i], p->paths[i]);
	/*
	 * Then inflate their compressed DWARF, which lookups inflate as far as they need, while
	 * this CPU would idle: until the parts start, which have a use for every CPU.
	 */
	for (size_t i = 0; !p->too_many && i < p->nr &&
			   !__atomic_load_n(&p->settled, __ATOMIC_RELAXED);
	     i++)
		for (size_t k = 0; k < p->nr_inls; k++)
			pp_inl_inflate_ahead(p->inls[k], p->bids[i], &p->settled);
	return NULL;
}

struct ana_inl_prefetch *ana_inl_prefetch_start(struct ana_session *s)
{
	const char *path = s->conv_path[0] ? s->conv_path : s->path;
	struct ana_inl_prefetch *p;

	if (!s->nr_inls || !path || !strcmp(path, "-") || (s->imported && !s->conv_path[0]))
		return NULL;
	p = pp_xcalloc(1, sizeof(*p));
	p->path = pp_xstrdup(path);
	p->nr_inls = s->nr_inls;
	p->inls = pp_xmalloc(s->nr_inls * sizeof(*p->inls));
	for (size_t k = 0; k < s->nr_inls; k++)
		p->inls[k] = s->inls[k].inl;
	if (pthread_create(&p->th, NULL, prefetch_main, p)) {
		free(p->inls);
		free(p->path);
		free(p);
		return NULL;
	}
	return p;
}

void ana_inl_prefetch_settle(struct ana_inl_prefetch *p)
{
	if (p)
		__atomic_store_n(&p->settled, true, __ATOMIC_RELAXED);
}

void ana_inl_prefetch_join(struct ana_inl_prefetch *p)
{
	if (!p)
		return;
	__atomic_store_n(&p->settled, true, __ATOMIC_RELAXED);
	__atomic_store_n(&p->stop, true, __ATOMIC_RELAXED);
	pthread_join(p->th, NULL);
	for (size_t i = 0; i < p->nr; i++) {
		free(p->bids[i]);
		free(p->paths[i]);
	}
	free(p->inls);
	free(p->path);
	free(p);
}

void ana_inl_prefetch_early(struct ana_session *s)
{
	bool any = false;

	if (s->live || s->import_job || !s->path || !strcmp(s->path, "-") || s->inl_prefetch)
		return;
	for (size_t i = 0; i < s->nr_azs; i++) {
		const struct pp_az *az = s->azs[i];
		const char *dir = az->ops->inline_dir ? az->ops->inline_dir(az) : NULL;

		if (dir) {
			ana_session_inl(s, *dir ? dir : NULL);
			any = true;
		}
	}
	if (any)
		s->inl_prefetch = ana_inl_prefetch_start(s);
}
