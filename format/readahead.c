/* SPDX-License-Identifier: MIT */
/*
 * readahead.c - one helper thread that decompresses the reader's next
 * segment while the caller decodes the current one (PPF_READ_AHEAD).
 *
 * One job at a time: ppf_ra_submit() hands over a compressed payload and an
 * output buffer, ppf_ra_wait() returns ZSTD_decompressDCtx()'s result.
 * Between the two the caller touches neither buffer.  Everything else -
 * reading the file, checking CRCs, deciding what a segment means - stays in
 * the reader's own thread (reader-segment.c); this file only moves the one step
 * that costs as much as decoding does.
 */
#include <pthread.h>
#include <zstd.h>

#include "format/internal.h"

struct ppf_ra {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	ZSTD_DCtx *dctx;
	/* the job, under lock */
	const void *src;
	size_t src_sz;
	void *dst;
	size_t dst_sz;
	size_t result;
	bool queued, finished, stop;
};

static void *ra_main(void *arg)
{
	struct ppf_ra *ra = arg;

	pthread_mutex_lock(&ra->lock);
	for (;;) {
		while (!ra->queued && !ra->stop)
			pthread_cond_wait(&ra->cond, &ra->lock);
		if (ra->stop)
			break;
		pthread_mutex_unlock(&ra->lock);
		size_t got = ZSTD_decompressDCtx(ra->dctx, ra->dst, ra->dst_sz, ra->src, ra->src_sz);
		pthread_mutex_lock(&ra->lock);
		ra->result = got;
		ra->queued = false;
		ra->finished = true;
		pthread_cond_broadcast(&ra->cond);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

int ppf_ra_start(struct ppf_ra **out)
{
	struct ppf_ra *ra = calloc(1, sizeof(*ra));

	*out = NULL;
	if (!ra)
		return -ENOMEM;
	ra->dctx = ZSTD_createDCtx();
	if (!ra->dctx) {
		free(ra);
		return -ENOMEM;
	}
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->cond, NULL);
	int rc = pthread_create(&ra->thread, NULL, ra_main, ra);
	if (rc) {
		pthread_cond_destroy(&ra->cond);
		pthread_mutex_destroy(&ra->lock);
		ZSTD_freeDCtx(ra->dctx);
		free(ra);
		return -rc;
	}
	*out = ra;
	return 0;
}

void ppf_ra_submit(struct ppf_ra *ra, const void *src, size_t src_sz, void *dst, size_t dst_sz)
{
	pthread_mutex_lock(&ra->lock);
	ra->src = src;
	ra->src_sz = src_sz;
	ra->dst = dst;
	ra->dst_sz = dst_sz;
	ra->finished = false;
	ra->queued = true;
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
}

size_t ppf_ra_wait(struct ppf_ra *ra)
{
	size_t got;

	pthread_mutex_lock(&ra->lock);
	while (!ra->finished)
		pthread_cond_wait(&ra->cond, &ra->lock);
	ra->finished = false;
	got = ra->result;
	pthread_mutex_unlock(&ra->lock);
	return got;
}

void ppf_ra_stop(struct ppf_ra *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->stop = true;	/* a job still running finishes first: its buffers are the caller's */
	pthread_cond_broadcast(&ra->cond);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->thread, NULL);
	pthread_cond_destroy(&ra->cond);
	pthread_mutex_destroy(&ra->lock);
	ZSTD_freeDCtx(ra->dctx);
	free(ra);
}
