/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the replay's progress line (see progress.h for when it shows).
 *
 *   pp-analyze: 412.50 MiB of 1.20 GiB (34%), 61.2M events, 5.10M events/s, 0:42 left
 *
 * The line is written with one write(2): a carriage return, the text cut to
 * the terminal's width (a wrapped line could not be redrawn in place) and an
 * erase to the end of the line; the end erases it the same way.  Bytes are
 * those of the segments read so far (the reader's stats), so the time left is
 * the rest of the file at the rate of the bytes read until now.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "analyze/progress.h"
#include "common/log.h"
#include "common/units.h"

#define SHOW_AFTER_NS 1000000000ull	/* a replay shorter than this shows nothing */
#define REFRESH_NS 250000000ull		/* at most four lines a second */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Both fds are the same terminal. */
static bool same_terminal(int a, int b)
{
	struct stat sa, sb;

	return isatty(a) && isatty(b) && !fstat(a, &sa) && !fstat(b, &sb) &&
	       sa.st_rdev == sb.st_rdev;
}

/* The report streams to the terminal the line would be on: events, or -i reports. */
static bool report_streams_here(const struct ana_session *s, int fd)
{
	if (!same_terminal(STDOUT_FILENO, fd))
		return false;
	if (s->has_ticks)
		return true;
	for (size_t i = 0; i < s->nr_azs; i++)
		if (s->azs[i]->an->caps & PP_AZC_STREAM)
			return true;
	return false;
}

void ana_progress_start(struct ana_progress *p, struct ana_session *s)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	p->next_check = UINT64_MAX;
	p->fd = STDERR_FILENO;
	if (s->live || s->part || pp_log_level < PP_LOG_INFO || !isatty(p->fd))
		return;
	if (!s->path || stat(s->path, &st) || !S_ISREG(st.st_mode))
		return;
	if (report_streams_here(s, p->fd))
		return;
	p->file_sz = (uint64_t)st.st_size;
	p->start_ns = now_ns();
	p->next_check = ANA_PROGRESS_EVERY;
}

/* "61.2M"-style counts. */
static char *count_str(double n, char *buf, size_t sz)
{
	if (n >= 1e9)
		snprintf(buf, sz, "%.2fG", n / 1e9);
	else if (n >= 1e6)
		snprintf(buf, sz, "%.2fM", n / 1e6);
	else if (n >= 1e4)
		snprintf(buf, sz, "%.1fk", n / 1e3);
	else
		snprintf(buf, sz, "%.0f", n);
	return buf;
}

static int columns(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 80;
	return ws.ws_col;
}

void ana_progress_update(struct ana_progress *p, struct ana_session *s)
{
	uint64_t t = now_ns(), elapsed = t - p->start_ns, bytes;
	char line[320], b1[32], b2[32], n1[32], n2[32];
	double sec;
	int len, width;

	p->next_check = p->nr_records + ANA_PROGRESS_EVERY;
	if (elapsed < SHOW_AFTER_NS || (p->shown && t - p->shown_ns < REFRESH_NS))
		return;
	bytes = ppf_reader_stats(s->r)->comp_bytes;
	if (p->file_sz && bytes > p->file_sz)
		bytes = p->file_sz;
	sec = (double)elapsed / 1e9;
	len = snprintf(line, sizeof(line), "\r%s: %s", pp_progname,
		       pp_format_bytes(bytes, b1, sizeof(b1)));
	if (p->file_sz)
		len += snprintf(line + len, sizeof(line) - (size_t)len, " of %s (%d%%)",
				pp_format_bytes(p->file_sz, b2, sizeof(b2)),
				(int)((double)bytes * 100.0 / (double)p->file_sz));
	len += snprintf(line + len, sizeof(line) - (size_t)len, ", %s events, %s events/s",
			count_str((double)p->nr_records, n1, sizeof(n1)),
			count_str((double)p->nr_records / sec, n2, sizeof(n2)));
	if (p->file_sz && bytes) {
		double left = (double)(p->file_sz - bytes) * sec / (double)bytes;
		unsigned long l = (unsigned long)(left + 0.5);

		if (l >= 3600)
			len += snprintf(line + len, sizeof(line) - (size_t)len, ", %luh%02lum left",
					l / 3600, l / 60 % 60);
		else
			len += snprintf(line + len, sizeof(line) - (size_t)len, ", %lu:%02lu left",
					l / 60, l % 60);
	}
	width = columns(p->fd);
	if (len > width)	/* the '\r' takes no column: keep the last one free */
		len = width;
	memcpy(line + len, "\033[K", 4);
	len += 3;
	if (write(p->fd, line, (size_t)len) < 0)
		p->next_check = UINT64_MAX;	/* the terminal is gone: stop trying */
	p->shown = true;
	p->shown_ns = t;
}

void ana_progress_end(struct ana_progress *p)
{
	if (p->shown && write(p->fd, "\r\033[K", 4) < 0) {
		/* nothing to do: the line was never seen */
	}
	p->shown = false;
	p->next_check = UINT64_MAX;
}
