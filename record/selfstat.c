/* SPDX-License-Identifier: MIT */
/*
 * selfstat.c - per-interval CPU, memory and throughput of pp-record (-v).
 *
 * Process CPU comes from getrusage(RUSAGE_SELF), the main thread's from
 * RUSAGE_THREAD (the poll loop calls us, so "thread" is the main one); the
 * difference is the ring reader thread.  RSS is read from /proc/self/statm,
 * which costs one small read per interval.
 * Not here: the summary at the end (summary.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/log.h"
#include "common/units.h"
#include "format/format.h"
#include "record/clock.h"
#include "record/ring/prod.h"
#include "record/selfstat.h"
#include "record/session.h"

struct rec_selfstat {
	FILE *fp;
	uint64_t interval_ns;
	uint64_t start_ns, last_ns;
	uint64_t last_cpu_us, last_main_us;
	uint64_t last_samples, last_lost, last_bytes;
	uint64_t max_rss;
};

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ull + (uint64_t)tv->tv_usec;
}

static void cpu_now(uint64_t *all_us, uint64_t *main_us)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*all_us = tv_us(&ru.ru_utime) + tv_us(&ru.ru_stime);
	getrusage(RUSAGE_THREAD, &ru);
	*main_us = tv_us(&ru.ru_utime) + tv_us(&ru.ru_stime);
}

uint64_t rec_selfstat_rss(void)
{
	char buf[128];
	unsigned long long size, res;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &res) != 2)
		return 0;
	return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Compressed bytes produced so far, over every file of a rotation. */
static uint64_t bytes_now(const struct rec_session *s)
{
	return s->prod ? rec_prod_bytes(s) : s->w ? ppf_writer_bytes(s->w) : 0;
}

void rec_selfstat_start(struct rec_session *s, uint64_t interval_ns, FILE *fp)
{
	struct rec_selfstat *st = pp_xcalloc(1, sizeof(*st));

	st->fp = fp;
	st->interval_ns = interval_ns ? interval_ns : 1000000000ull;
	st->start_ns = st->last_ns = rec_now_ns();
	cpu_now(&st->last_cpu_us, &st->last_main_us);
	st->last_samples = s->nr_samples;
	st->last_lost = s->nr_lost;
	st->last_bytes = bytes_now(s);
	s->self = st;
}

void rec_selfstat_tick(struct rec_session *s, uint64_t now_ns)
{
	struct rec_selfstat *st = s->self;
	uint64_t cpu, main_us, rss, bytes;
	double dt, pct, mpct;
	char rs[32], bs[32];

	if (!st || now_ns - st->last_ns < st->interval_ns)
		return;
	dt = (double)(now_ns - st->last_ns) / 1e9;
	cpu_now(&cpu, &main_us);
	rss = rec_selfstat_rss();
	if (rss > st->max_rss)
		st->max_rss = rss;
	bytes = bytes_now(s);
	pct = (double)(cpu - st->last_cpu_us) / 1e4 / dt;
	mpct = (double)(main_us - st->last_main_us) / 1e4 / dt;
	pp_format_bytes(rss, rs, sizeof(rs));
	pp_format_bytes((uint64_t)((double)(bytes - st->last_bytes) / dt), bs, sizeof(bs));
	fprintf(st->fp,
		"pp-record: %7.1fs cpu %5.1f%% (main %.1f%% reader %.1f%%) rss %s events %.0f/s lost %llu written %s/s\n",
		(double)(now_ns - st->start_ns) / 1e9, pct, mpct, pct > mpct ? pct - mpct : 0.0, rs,
		(double)(s->nr_samples - st->last_samples) / dt,
		(unsigned long long)(s->nr_lost - st->last_lost), bs);
	fflush(st->fp);
	st->last_ns = now_ns;
	st->last_cpu_us = cpu;
	st->last_main_us = main_us;
	st->last_samples = s->nr_samples;
	st->last_lost = s->nr_lost;
	st->last_bytes = bytes;
}

void rec_selfstat_free(struct rec_session *s)
{
	free(s->self);
	s->self = NULL;
}
