/* SPDX-License-Identifier: MIT */
/*
 * spill.c - the spill file of tracefs pages (see spill.h for why).
 *
 * splice(2) from trace_pipe_raw hands over whole pages only, those the
 * kernel's writer has left; it goes through a pipe because one end of a
 * splice must be one.  Writes land at explicit offsets (the drain thread's
 * wpos) and reads at the marker's, so the two threads never share a file
 * position.  in and out only grow; in - out is the backlog.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sys.h"
#include "record/ring/spill.h"

#define SPILL_PIPE (256u << 10)		/* bytes a splice moves at most */
#define SPILL_RESERVE (16ull << 20)	/* the file's space is reserved this far ahead */
#define SPILL_READ (256u << 10)		/* the consumer reads back this much at a time */

static int open_tmp(const char *dir)
{
	char *path;
	int fd = pp_sys_open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT))
		return fd >= 0 ? fd : -errno;
	/* a filesystem without O_TMPFILE: a named file, unlinked at once */
	path = pp_xasprintf("%s/.pp-spill-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	else
		fd = -errno;
	free(path);
	return fd;
}

int rec_spill_open(struct rec_spill *sp, const char *dir, size_t page, uint64_t max_backlog)
{
	int rc;

	sp->fd = -1;
	sp->pipe[0] = sp->pipe[1] = -1;
	sp->max_backlog = max_backlog;
	if (!page || max_backlog < 2 * SPILL_PIPE)
		return -EINVAL;
	rc = open_tmp(dir);
	if (rc < 0)
		return rc;
	sp->fd = rc;
	if (pipe2(sp->pipe, O_CLOEXEC)) {
		rc = -errno;
		rec_spill_close(sp);
		return rc;
	}
	/* a bigger pipe moves more pages a call; the default (16 pages) where refused */
	rc = fcntl(sp->pipe[1], F_SETPIPE_SZ, (int)SPILL_PIPE);
	if (rc < 0)
		rc = fcntl(sp->pipe[1], F_GETPIPE_SZ);
	sp->chunk = rc > 0 ? (size_t)rc / page * page : page;
	if (!sp->chunk)
		sp->chunk = page;
	sp->rbuf = pp_xmalloc(8 + SPILL_READ + page);
	sp->page = page;	/* set up: the summary reports it */
	return 0;
}

uint64_t rec_spill_backlog(const struct rec_spill *sp)
{
	return __atomic_load_n(&sp->in, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&sp->out, __ATOMIC_ACQUIRE);
}

/* Spilling stops for good: errno @err, say it once. */
static int turn_off(struct rec_spill *sp, int err)
{
	sp->off = true;
	sp->last_err = err;
	pp_warn("spill file: %s; tracefs pages are read into memory from now on", strerror(err));
	return -1;
}

/* Reserve the file's space past @need: the splice into it then cannot fail for space. */
static int reserve(struct rec_spill *sp, uint64_t need)
{
	if (sp->no_reserve || need <= sp->reserved)
		return 0;
	if (fallocate(sp->fd, 0, (off_t)sp->reserved, (off_t)(need - sp->reserved + SPILL_RESERVE))) {
		if (errno == EOPNOTSUPP || errno == ENOSYS) {
			sp->no_reserve = true;	/* a failed write is still caught below */
			return 0;
		}
		return -errno;
	}
	sp->reserved = need + SPILL_RESERVE;
	return 0;
}

int rec_spill_pages(struct rec_spill *sp, int fd, size_t limit, struct rec_spill_mark *mark)
{
	uint64_t out = __atomic_load_n(&sp->out, __ATOMIC_ACQUIRE);

	mark->len = 0;
	if (!rec_spill_on(sp))
		return -1;
	/* all read back: start over, so the file is as big as the largest backlog */
	if (out == sp->in && sp->wpos) {
		sp->wpos = 0;
		sp->nr_resets++;
	}
	mark->off = sp->wpos;
	while (mark->len + sp->page <= limit) {
		size_t want = sp->chunk;
		ssize_t n;
		int rc;

		if (want > limit - mark->len)
			want = (size_t)(limit - mark->len) / sp->page * sp->page;
		if (sp->in - out + want > sp->max_backlog) {
			want = (size_t)(sp->max_backlog - (sp->in - out)) / sp->page * sp->page;
			if (!want) {
				sp->nr_full++;
				return 0;
			}
		}
		rc = reserve(sp, sp->wpos + want);
		if (rc)
			return turn_off(sp, -rc);
		n = splice(fd, NULL, sp->pipe[1], NULL, want, SPLICE_F_NONBLOCK);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 1;
		if (n <= 0)
			return n ? turn_off(sp, errno) : 1;
		for (uint64_t moved = 0; moved < (uint64_t)n;) {
			loff_t o = (loff_t)(sp->wpos + moved);
			ssize_t m = splice(sp->pipe[0], NULL, sp->fd, &o, (size_t)n - moved, 0);

			if (m <= 0) {
				/* whole pages stay marked; a page cut in two comes back by leftover */
				uint64_t whole = moved / sp->page * sp->page;

				sp->left_off = sp->wpos + whole;
				sp->left_file = moved - whole;
				sp->left_pipe = (uint64_t)n - moved;
				mark->len += whole;
				sp->wpos += whole;
				__atomic_add_fetch(&sp->in, whole, __ATOMIC_RELEASE);
				sp->nr_pages += whole / sp->page;
				return turn_off(sp, m < 0 ? errno : ENOSPC);
			}
			moved += (uint64_t)m;
		}
		mark->len += (uint64_t)n;
		sp->wpos += (uint64_t)n;
		__atomic_add_fetch(&sp->in, (uint64_t)n, __ATOMIC_RELEASE);
		sp->nr_pages += (uint64_t)n / sp->page;
		if (sp->wpos > sp->file_high)
			sp->file_high = sp->wpos;
		if (sp->in - out > sp->max_used)
			sp->max_used = sp->in - out;
	}
	return 0;
}

size_t rec_spill_leftover(struct rec_spill *sp, uint8_t *stage)
{
	size_t have = 0, from_pipe;

	if (!sp->left_file && !sp->left_pipe)
		return 0;
	if (sp->left_file) {
		ssize_t n = pread(sp->fd, stage, sp->left_file, (off_t)sp->left_off);

		have = n > 0 ? (size_t)n : 0;
		if (have < sp->left_file)	/* cannot be read back: zeros, the page is dropped */
			memset(stage + have, 0, sp->left_file - have);
		have = sp->left_file;
		sp->left_file = 0;
	}
	from_pipe = sp->page - have;
	if (from_pipe > sp->left_pipe)
		from_pipe = sp->left_pipe;
	while (from_pipe) {
		ssize_t n = read(sp->pipe[0], stage + have, from_pipe);

		if (n <= 0) {
			sp->left_pipe = 0;	/* cannot happen: the pipe holds what splice left */
			break;
		}
		have += (size_t)n;
		from_pipe -= (size_t)n;
		sp->left_pipe -= (uint64_t)n;
	}
	return have;
}

bool rec_spill_read(struct rec_spill *sp, const struct rec_spill_mark *m, uint64_t *done,
		    size_t budget, rec_spill_page_fn fn, void *arg, uint64_t *lost_bytes)
{
	size_t handed = 0;

	while (*done < m->len) {
		size_t n = SPILL_READ;
		ssize_t got;

		if (budget && handed >= budget)
			return false;
		if (budget && budget - handed < n)	/* whole pages, at least one */
			n = (budget - handed + sp->page - 1) / sp->page * sp->page;
		if (n > m->len - *done)
			n = (size_t)(m->len - *done);
		got = pread(sp->fd, sp->rbuf + 8, n, (off_t)(m->off + *done));
		if (got < (ssize_t)sp->page) {
			/* cannot happen with a file we wrote: count the pages, never loop */
			*lost_bytes += m->len - *done;
			__atomic_add_fetch(&sp->out, m->len - *done, __ATOMIC_RELEASE);
			*done = m->len;
			break;
		}
		n = (size_t)got / sp->page * sp->page;
		/* each page has the 8 bytes before it to spare: the last page's tail, handed over */
		for (size_t k = 0; k < n; k += sp->page)
			fn(sp->rbuf + 8 + k, sp->page, arg);
		*done += n;
		handed += n;
		__atomic_add_fetch(&sp->out, n, __ATOMIC_RELEASE);
	}
	return true;
}

void rec_spill_close(struct rec_spill *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	if (sp->pipe[0] >= 0)
		close(sp->pipe[0]);
	if (sp->pipe[1] >= 0)
		close(sp->pipe[1]);
	sp->fd = sp->pipe[0] = sp->pipe[1] = -1;
	free(sp->rbuf);
	sp->rbuf = NULL;
}
