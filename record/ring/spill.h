/* SPDX-License-Identifier: MIT */
/*
 * spill.h - tracefs pages moved to a file while the recorded workload runs.
 *
 * Decoding, ordering, encoding and compressing an event costs pp-record
 * ~300 ns of CPU.  When the workload keeps every CPU busy, that CPU comes
 * out of the workload's time, however little of it there is.  trace-cmd's
 * answer is ours: during the run only move ring-buffer pages, with
 * splice(2) (the kernel hands its pages over; no copy to user space), into
 * a file, and do the rest when the CPUs are free.  So the drain thread
 * splices every full tracefs page into one spill file (unlinked, next to
 * the capture) and queues a marker - these pages, at this offset - in the
 * ring's FIFO, where the pages themselves would have gone; the consumer
 * reads them back when it reaches the marker.  Order, the drain's round
 * times and the merge are untouched: the marker is in the FIFO in the place
 * of its pages.  The consumer then runs at SCHED_IDLE (drain.c) and is
 * raised when the spill passes a quarter of its bound.
 *
 * Bounded: at most max_backlog bytes spilled and not read back; beyond it
 * pages stay in the kernel's ring (whose drops are counted, as always).
 * The file goes back to offset 0 whenever everything in it has been read,
 * so it grows to the largest backlog, not to the volume.  Its space is
 * reserved ahead with fallocate(): a full disk makes the drain go back to
 * read(2) into memory, never loses a page.  Not used for -o - (live mode
 * cannot wait) nor for the flight recorder and rotation, which act on
 * events as they come.
 */
#ifndef PP_RECORD_SPILL_H
#define PP_RECORD_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* drain FIFO record: pages [off, off + len) of the spill file (struct rec_spill_mark) */
#define REC_FIFO_SPILL 0xfffeu

struct rec_spill_mark {
	uint64_t off, len;
};

struct rec_spill {
	int fd;				/* the file, -1 when spilling is off */
	int pipe[2];			/* splice goes file <- pipe <- trace_pipe_raw */
	size_t page;			/* bytes of one tracefs page */
	size_t chunk;			/* bytes moved per splice (the pipe's capacity) */
	uint64_t max_backlog;		/* bound on bytes spilled and not read back */
	uint64_t wpos;			/* drain thread: the next write offset */
	uint64_t reserved;		/* drain thread: the file's space is reserved up to here */
	uint64_t in;			/* bytes spilled (drain thread, atomic) */
	uint64_t out;			/* bytes read back (consumer, atomic) */
	uint8_t *rbuf;			/* consumer: a chunk read back, a header's room before it */
	bool off;			/* drain thread: a write failed, read(2) from now on */
	bool no_reserve;		/* the filesystem cannot fallocate(): write without */
	uint64_t left_off, left_file;	/* after a failure: bytes of a page in the file, at left_off */
	uint64_t left_pipe;		/* ... and bytes of pages still in the pipe */
	/* statistics */
	uint64_t nr_pages, nr_resets, nr_full, max_used, file_high;
	int last_err;			/* errno of the failure that turned it off, 0 */
};

/**
 * rec_spill_open() - create the spill file in directory @dir
 * @sp: zeroed by the caller
 * @dir: where the capture goes (same filesystem, same space)
 * @page: bytes of one tracefs page
 * @max_backlog: the bound (bytes)
 * Return: 0 or -errno (then @sp is off and rec_spill_close() is still safe).
 */
int rec_spill_open(struct rec_spill *sp, const char *dir, size_t page, uint64_t max_backlog);

/** rec_spill_on() - whether pages go to the file. */
static inline bool rec_spill_on(const struct rec_spill *sp)
{
	return sp->fd >= 0 && !sp->off;
}

/** rec_spill_backlog() - bytes spilled and not read back yet. */
uint64_t rec_spill_backlog(const struct rec_spill *sp);

/**
 * rec_spill_pages() - drain thread: move whole pages from @fd into the file
 * @sp: the spill
 * @fd: a non-blocking trace_pipe_raw
 * @limit: at most this many bytes (also what a failure may leave to rec_spill_leftover())
 * @mark: receives where they went (len 0: none)
 * Return: 1 when @fd has no whole page left (what remains is a partial page,
 * for read(2)), 0 when @limit or the bound stopped it, -1 when spilling just
 * turned off (@mark still holds what did reach the file, and a page a failed
 * write left half in the pipe is then rec_spill_leftover()'s).
 */
int rec_spill_pages(struct rec_spill *sp, int fd, size_t limit, struct rec_spill_mark *mark);

/**
 * rec_spill_leftover() - after a failure, the next page it left behind
 * @sp: the spill
 * @stage: a page of memory, receives it
 * Return: its bytes (a page), or 0 when there is none left.
 */
size_t rec_spill_leftover(struct rec_spill *sp, uint8_t *stage);

/** Called by rec_spill_read() with each page read back; borrowed, with 8 writable bytes before it. */
typedef void (*rec_spill_page_fn)(uint8_t *page, size_t len, void *arg);

/**
 * rec_spill_read() - consumer: hand over pages of a marker, from its byte @done on
 * @sp: the spill
 * @m: the marker
 * @done: bytes of it already handed over; updated
 * @budget: stop after about this many bytes (0: all)
 * @fn: the callback
 * @arg: its argument
 * Return: true when the marker is finished (also when the file could not be read:
 * its pages are then counted in *@lost_bytes).
 */
bool rec_spill_read(struct rec_spill *sp, const struct rec_spill_mark *m, uint64_t *done,
		    size_t budget, rec_spill_page_fn fn, void *arg, uint64_t *lost_bytes);

/** rec_spill_close() - close the file (its space goes with it) and the pipe. */
void rec_spill_close(struct rec_spill *sp);

#endif
