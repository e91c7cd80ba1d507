/* SPDX-License-Identifier: MIT */
/*
 * writer-internal.h - the writer's state, shared by its parts: writer.c (the
 * file and its segments: compression, checksums, digests, the index),
 * writer-meta.c (metadata and symbol records) and writer-events.c (the
 * records of EVENTS segments: samples, their stacks and raw data, side band).
 *
 * A record is built in w->body between ppf_writer_rec_begin() and
 * ppf_writer_rec_end(), which appends it to the open segment (w->seg);
 * a SAMPLE is encoded straight into w->seg (writer-events.c).
 * Not here: the record codec shared with the reader (internal.h).
 */
#ifndef PP_FORMAT_WRITER_INTERNAL_H
#define PP_FORMAT_WRITER_INTERNAL_H

#include <zstd.h>

#include "format/internal.h"
#include "format/ustack.h"

struct stack_slot {
	uint64_t hash;
	uint32_t id;
	uint32_t nr;
	const uint64_t *frames;
};

struct ppf_writer {
	int fd;
	bool own_fd;
	ppf_sink_fn sink;		/* when set, output goes here instead of fd */
	void *sink_arg;
	int err;
	char errmsg[256];
	struct ppf_writer_opts opts;
	ZSTD_CCtx *cctx;
	uint64_t offset;		/* bytes written to the fd so far */
	uint64_t seq;			/* next segment's sequence number */

	/* the open segment */
	bool open;
	uint32_t kind;
	bool meta_full;			/* the last segment was metadata closed full: more follows */
	struct ppf_wbuf seg, body, cbuf;
	struct ppf_wbuf tcol;		/* the timed records' dt (PPF_SEGF_TIME_COL) */
	bool have_time;
	uint64_t first_ns, last_ns;	/* timed records of this segment */
	uint32_t nr_records, nr_samples;
	uint64_t opened_mono_ns;
	uint64_t file_last_ns;		/* last timed record of the file */

	/* per-segment interning */
	struct stack_slot *stab;
	size_t stab_cap, nr_stacks;
	struct ppf_arena frames;
	uint8_t **prev_raw;
	uint32_t *prev_sz, *prev_gen;
	uint32_t gen;
	size_t cap_prev;
	uint64_t prev_addr;		/* the previous KSYM addr or SYM start (DELTA_ADDR) */
	uint64_t *cpu_last;		/* by cpu: this segment's last SAMPLE time (gen-checked) */
	uint32_t *cpu_gen;
	size_t cap_cpu;
	struct ppf_ctrtab ctr;		/* COUNTER delta bases */
	struct ppf_ustk_tab ustk;	/* USTACK bases (ustack.h), reset when gen moves */
	uint32_t ustk_gen;
	/*
	 * The stack copies' bytes in the open segment, as a reader decodes them: stored as runs
	 * they may take far fewer raw bytes, and the reader holds them all until the segment
	 * ends, so a segment closes at seg_max_raw of them too (ppf_writer_rec_done()).
	 */
	size_t ustk_bytes;
	struct ppf_digest_w dig;	/* the side band of the EVENTS segments since the last DIGEST */

	struct ppf_index_entry *idx;
	size_t nr_idx, cap_idx;
	struct ppf_writer_totals totals;
};

/* Record @err with the message "@what: <error>" unless an error is already there; return @err. */
int ppf_writer_fail(struct ppf_writer *w, int err, const char *what);

/* Compress, checksum and write the open segment (none open: nothing). Return 0 or the error. */
int ppf_writer_segment_close(struct ppf_writer *w);

/*
 * Start a record in a segment of @kind; the body is built in w->body
 * (reserved for @max_body bytes) and committed by ppf_writer_rec_end().
 */
int ppf_writer_rec_begin(struct ppf_writer *w, enum ppf_seg_kind kind, size_t max_body);

/* Append the record of @type built in w->body to the open segment (and the digest). */
int ppf_writer_rec_end(struct ppf_writer *w, uint8_t type);

/* A record was appended to the segment: close it when full or old. */
static inline int ppf_writer_rec_done(struct ppf_writer *w)
{
	w->nr_records++;
	if (w->seg.len + w->tcol.len >= w->opts.seg_max_raw || w->ustk_bytes >= w->opts.seg_max_raw) {
		w->meta_full = w->kind == PPF_SEG_META;
		return ppf_writer_segment_close(w);
	}
	if (w->opts.seg_max_age_ns && (w->nr_records & 63) == 0)
		return ppf_writer_tick(w);
	return 0;
}

/* The most bytes wb_str() writes for @s. */
static inline size_t ppf_str_sz(const char *s)
{
	return PPF_VARINT_MAX + (s ? strlen(s) : 0) + 1;
}

/* A string as rb_str() reads it: varint length, the bytes, a NUL. */
static inline void wb_str(struct ppf_wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wb_varint(b, n);
	wb_bytes(b, s ? s : "", n);
	wb_u8(b, 0);
}

/* unwind.c: an UNWIND record a reader decoded, re-encoded (ppf_write_record()). */
int ppf_write_unwind_rec(struct ppf_writer *w, const struct ppf_unwind *u);

#endif
