/* SPDX-License-Identifier: MIT */
/*
 * reader-internal.h - the reader's state, shared by its parts: reader.c
 * (opening, the file header, records out of segments, the settings),
 * reader-segment.c (segments out of the input: buffering, damage and its
 * accounting, read-ahead, digests in place of skimmed segments) and
 * reader-index.c (the trailer and index, the segment list).
 *
 * Invariant: ibuf[ioff, ilen) holds the input bytes at file offset pos.
 * Not here: decoding records (decode.c, internal.h).
 */
#ifndef PP_FORMAT_READER_INTERNAL_H
#define PP_FORMAT_READER_INTERNAL_H

#include <zstd.h>

#include "format/internal.h"

#define PPF_IBUF_SZ (256u << 10)	/* the input buffer: a whole segment read ahead fits */
#define PPF_MAX_PROBLEMS 64		/* problems kept in the stats (all are counted) */

struct ppf_reader {
	int fd;
	bool own_fd;
	bool seekable;
	unsigned flags;
	char errmsg[256];
	struct ppf_file_info info;
	struct ppf_read_stats stats;
	struct ppf_problem problems[PPF_MAX_PROBLEMS];

	/* buffered input: ibuf[ioff, ilen) holds the bytes at file offset pos */
	uint64_t pos;
	uint8_t *ibuf;
	size_t ioff, ilen;
	bool eof;

	ZSTD_DCtx *dctx;
	struct ppf_wbuf payload, raw;
	struct ppf_segment seg;
	struct ppf_decoder dec;
	bool in_seg;
	bool done;
	bool clean_end;
	uint64_t seek_ns;
	/* PPF_READ_AHEAD: the segment after r->seg, being decompressed into next_raw */
	struct ppf_ra *ra;
	bool ahead;			/* a job is in flight */
	struct ppf_seg_hdr next_hdr;
	uint64_t next_off;
	struct ppf_wbuf next_payload, next_raw;
	struct ppf_index_entry *idx;	/* from the trailer's index, sorted by offset */
	size_t nr_idx, cap_idx;
	uint64_t win_from, win_to;	/* ppf_reader_set_window(); 0: open */
	bool records;			/* read through ppf_reader_next(): digests passed over */
	/* ppf_reader_set_digests(): the DIGEST segments' offsets, and the one loaded */
	uint64_t *dig_off;
	size_t nr_dig;
	uint64_t dig_at;		/* offset of the digest in dig_grp (0: none) */
	struct ppf_wbuf dig_c, dig_u;
	struct ppf_digest_grp *dig_grp;	/* NULL: none, or not to be used */
	size_t dig_nr_grp;
	struct ppf_checks *checks;	/* ppf_reader_share_checks(); NULL: none */
	unsigned pass_kinds;		/* ppf_reader_pass_over() */
	uint64_t pass_before;
	struct ppf_segq *q;		/* ppf_reader_open_segq(): the segments come from it */
	bool q_held;			/* the reader holds the queue's first piece */
};

/* Set the message ppf_reader_errmsg() returns. */
void ppf_reader_set_msg(struct ppf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Record a problem with segment @seq at @off (@kind 0 when the header there
 * is not trusted): @err, @nr records lost; the message names it too.
 * Problems before the window are left to the reader of that part.
 */
void ppf_reader_problem(struct ppf_reader *r, uint64_t seq, uint64_t off, int err, uint32_t nr,
			uint32_t kind);

/* Make at least @n bytes available at ibuf+ioff; return how many are (may be fewer at EOF). */
size_t ppf_reader_in_fill(struct ppf_reader *r, size_t n);
/* Consume @n bytes; seeks over them when the fd allows.  Return bytes consumed. */
uint64_t ppf_reader_in_skip(struct ppf_reader *r, uint64_t n);

/* Wait for the segment read ahead, if any, and drop it (rewind). */
void ppf_reader_ahead_drop(struct ppf_reader *r);

/* ppf_reader_next_segment() of a reader on a queue (ppf_reader_open_segq()). */
int ppf_reader_segq_next(struct ppf_reader *r, const struct ppf_segment **out);

/* With an index, jump over EVENTS segments that end before the seek time. */
void ppf_reader_index_skip(struct ppf_reader *r);
/* Load the index the trailer points to; a damaged or absent one only means "no index". */
void ppf_reader_probe_trailer(struct ppf_reader *r);

#endif
