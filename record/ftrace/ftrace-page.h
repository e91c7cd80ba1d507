/* SPDX-License-Identifier: MIT */
/*
 * ftrace-page.h - walk the events of one ftrace ring-buffer page.
 *
 * A page as trace_pipe_raw hands it out (64-bit kernels, see
 * events/header_page): u64 timestamp, u64 commit, then commit bytes of
 * events.  Bit 31 of commit says events were dropped before this page, bit
 * 30 that their number follows the data as a u64.  Each event starts with a
 * u32: type_len (5 bits) and time_delta (27 bits), added to the running
 * timestamp.  type_len 1..28: that many u32s of data follow; 0: the next u32
 * is the length in bytes (itself included) of what follows; 29: padding (a
 * zero delta ends the page, else the next u32 is its length); 30: a time
 * extension, delta | next u32 << 27; 31: an absolute timestamp, same layout,
 * of the low 59 bits.  Everything is bounded by the page: a malformed page
 * ends the walk (the kernel wrote it, but a bug must not become a crash).
 * Not here: what the data means (the tracepoint format, decoded by pp-analyze).
 */
#ifndef PP_RECORD_FTRACE_PAGE_H
#define PP_RECORD_FTRACE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_FTPAGE_HDR 16u		/* timestamp + commit */
#define REC_FTPAGE_MISSED (1u << 31)
#define REC_FTPAGE_MISSED_STORED (1u << 30)

struct rec_ftpage {
	const uint8_t *p, *end;		/* the next event, the end of the data */
	uint64_t ts;			/* the running timestamp */
	bool missed;			/* events were dropped before this page */
	uint64_t nr_missed;		/* how many, when stored (else 0) */
	bool bad;			/* the walk stopped at a malformed event */
};

struct rec_ftpage_ev {
	uint64_t time_ns;
	const uint8_t *data;
	uint32_t len;			/* bytes of data (a multiple of 4) */
};

/**
 * rec_ftpage_open() - start walking @page of @len bytes
 * Return: the bytes the page really uses (header, data and the stored count),
 *         or 0 when it is too short or its commit does not fit in @len.
 */
size_t rec_ftpage_open(struct rec_ftpage *it, const uint8_t *page, size_t len);

/**
 * rec_ftpage_next() - the next data event
 * Return: true with @ev filled in, false at the end of the page (it->bad says why).
 */
bool rec_ftpage_next(struct rec_ftpage *it, struct rec_ftpage_ev *ev);

#endif
