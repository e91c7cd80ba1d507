/* SPDX-License-Identifier: MIT */
/*
 * writer.c - writing a capture: records into segments, segments into a file.
 *
 * Records are encoded into the open segment's raw buffer; a segment is
 * closed when it reaches seg_max_raw bytes, when seg_max_age_ns has passed
 * since its first record, when another kind of segment is needed, or on
 * ppf_writer_flush().  A closed segment is compressed (one zstd frame, or
 * stored raw when that is not smaller), checksummed and written with one
 * writev(), so a crash leaves whole segments plus at most one partial one.
 * The side band of each EVENTS segment is copied as it is written into a
 * DIGEST segment (digest.c), written after every digest_segs of them, before
 * a copied segment, at close and when asked (ppf_writer_flush_digest()).
 * Not here: encoding the records (writer-meta.c, writer-events.c), decoding
 * (decode.c) or reading files (reader.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/io.h"
#include "common/sys.h"
#include "format/writer-internal.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ppf_writer_fail(struct ppf_writer *w, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s: %s", what, pp_strerror(err));
	}
	return err;
}

/*
 * Hand one piece to the sink: @nr is 1 (file header, trailer) or 2 (a
 * segment: header, payload).  The sink's error is sticky like a write error.
 */
static int sink_put(struct ppf_writer *w, const struct iovec *iov, int nr)
{
	struct ppf_chunk c = { .head = iov[0].iov_base, .head_sz = iov[0].iov_len };
	struct ppf_seg_hdr h;
	int rc;

	if (nr == 2) {
		c.what = PPF_CHUNK_SEGMENT;
		c.body = iov[1].iov_base;
		c.body_sz = iov[1].iov_len;
		if (ppf_seg_hdr_decode(c.head, &h) == 0) {
			c.seg_kind = h.kind;
			c.seq = h.seq;
			c.first_ns = h.first_ns;
			c.last_ns = h.last_ns;
			c.usize = h.usize;
			c.nr_records = h.nr_records;
			c.nr_samples = h.nr_samples;
		}
		if (w->opts.in_memory && c.body && c.body == w->seg.data) {
			c.swap_buf = (void **)&w->seg.data;	/* reset before it is used again */
			c.swap_cap = &w->seg.cap;
		}
	} else {
		c.what = c.head_sz == PPF_FILE_HDR_SZ ? PPF_CHUNK_FILE_HDR : PPF_CHUNK_TRAILER;
	}
	rc = w->sink(w->sink_arg, &c);
	if (rc)
		return ppf_writer_fail(w, rc < 0 ? rc : -EIO, "sink");
	w->offset += c.head_sz + c.body_sz;
	return 0;
}

/* Write @iov (consumed in place) to the fd or the sink. */
static int write_all(struct ppf_writer *w, struct iovec *iov, int nr)
{
	size_t n;
	int rc;

	if (w->sink)
		return sink_put(w, iov, nr);
	rc = pp_writev_full(w->fd, iov, nr, &n);
	w->offset += n;		/* a failed write's first part is in the file too */
	return rc ? ppf_writer_fail(w, rc, "write") : 0;
}

static void writer_free(struct ppf_writer *w);

static int writer_init(int fd, bool own, ppf_sink_fn sink, void *sink_arg,
		       const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	struct ppf_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[PPF_FILE_HDR_SZ];
	struct timespec ts;

	*out = NULL;
	if (!w) {
		if (own)
			close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->own_fd = own;
	w->sink = sink;
	w->sink_arg = sink_arg;
	if (opts)
		w->opts = *opts;
	if (sink)
		w->opts.own_fd = false;
	if (!w->opts.seg_max_raw)
		w->opts.seg_max_raw = 1u << 20;
	if (w->opts.seg_max_raw > PPF_SEG_MAX_RAW / 2)
		w->opts.seg_max_raw = PPF_SEG_MAX_RAW / 2;
	if (!w->opts.zstd_level)
		w->opts.zstd_level = 3;
	if (!w->opts.digest_segs)
		w->opts.digest_segs = 16;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		if (own)
			close(fd);
		writer_free(w);
		return -ENOMEM;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opts.zstd_level);
	if (!w->opts.created_ns) {
		clock_gettime(CLOCK_REALTIME, &ts);
		w->opts.created_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	ppf_file_hdr_encode(w->opts.created_ns, hdr);
	struct iovec iov = { hdr, sizeof(hdr) };
	int rc = write_all(w, &iov, 1);
	if (rc) {
		if (own)
			close(fd);
		writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int ppf_writer_open(const char *path, const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	int fd = pp_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	*out = NULL;
	if (fd < 0)
		return -errno;
	return writer_init(fd, true, NULL, NULL, opts, out);
}

int ppf_writer_open_fd(int fd, const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	return writer_init(fd, opts && opts->own_fd, NULL, NULL, opts, out);
}

int ppf_writer_open_cb(ppf_sink_fn fn, void *arg, const struct ppf_writer_opts *opts,
		       struct ppf_writer **out)
{
	*out = NULL;
	if (!fn)
		return -EINVAL;
	return writer_init(-1, false, fn, arg, opts, out);
}

uint64_t ppf_writer_bytes(const struct ppf_writer *w)
{
	return w->offset;
}

const char *ppf_writer_errmsg(const struct ppf_writer *w)
{
	return w && w->errmsg[0] ? w->errmsg : "no error";
}

void ppf_writer_totals(const struct ppf_writer *w, struct ppf_writer_totals *t)
{
	*t = w->totals;
}

static int index_add(struct ppf_writer *w, const struct ppf_index_entry *e)
{
	if (w->nr_idx == w->cap_idx) {
		size_t cap = w->cap_idx ? w->cap_idx * 2 : 64;
		struct ppf_index_entry *p = realloc(w->idx, cap * sizeof(*p));
		if (!p)
			return ppf_writer_fail(w, -ENOMEM, "index");
		w->idx = p;
		w->cap_idx = cap;
	}
	w->idx[w->nr_idx++] = *e;
	return 0;
}

static void segment_reset(struct ppf_writer *w)
{
	w->open = false;
	w->seg.len = 0;
	w->tcol.len = 0;
	w->have_time = false;
	w->first_ns = w->last_ns = 0;
	w->nr_records = w->nr_samples = 0;
	w->nr_stacks = 0;
	w->prev_addr = 0;
	ppf_ctrtab_reset(&w->ctr);
	if (w->stab)
		memset(w->stab, 0, w->stab_cap * sizeof(*w->stab));
	ppf_arena_reset(&w->frames);
	w->ustk_bytes = 0;
	w->gen++;
}

/*
 * @len bytes of payload @raw as the segment of header @h stores them: one zstd frame in
 * w->cbuf when that is smaller (PPF_SEGF_ZSTD), else @raw itself (always in memory).
 * Return: 0 with *@payload, *@plen, or the error.
 */
static int seg_compress(struct ppf_writer *w, struct ppf_seg_hdr *h, const uint8_t *raw,
			size_t len, const uint8_t **payload, size_t *plen)
{
	int rc;

	*payload = raw;
	*plen = len;
	if (w->opts.in_memory)
		return 0;
	size_t bound = ZSTD_compressBound(len);
	w->cbuf.len = 0;
	rc = ppf_wbuf_reserve(&w->cbuf, bound);
	if (rc)
		return ppf_writer_fail(w, rc, "compress");
	size_t c = ZSTD_compress2(w->cctx, w->cbuf.data, w->cbuf.cap, raw, len);
	if (ZSTD_isError(c)) {
		snprintf(w->errmsg, sizeof(w->errmsg), "zstd: %s", ZSTD_getErrorName(c));
		return w->err = PP_EBAD_ZSTD;
	}
	if (c < len) {
		h->flags |= PPF_SEGF_ZSTD;
		*payload = w->cbuf.data;
		*plen = c;
	}
	return 0;
}

/*
 * Compress @len bytes of payload @raw (stored as is when that is not smaller), checksum,
 * write and index a segment of header @h (kind, flags, times and counts set; the rest
 * is filled in here).
 */
static int seg_emit(struct ppf_writer *w, struct ppf_seg_hdr *h, const uint8_t *raw, size_t len)
{
	uint8_t hdr[PPF_SEG_HDR_SZ];
	const uint8_t *payload;
	size_t plen;
	int rc;

	h->seq = w->seq;
	h->usize = (uint32_t)len;
	if ((rc = seg_compress(w, h, raw, len, &payload, &plen)))
		return rc;
	h->csize = (uint32_t)plen;
	/* in memory: nothing between the writer and the reader to check it against */
	h->payload_crc = w->opts.in_memory ? 0 : ppf_crc32c(0, payload, plen);
	ppf_seg_hdr_encode(h, hdr);

	struct ppf_index_entry e = {
		.offset = w->offset, .kind = h->kind, .seq = h->seq, .first_ns = h->first_ns,
		.last_ns = h->last_ns, .nr_records = h->nr_records,
	};
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)payload, plen } };
	rc = write_all(w, iov, 2);
	if (rc)
		return rc;
	w->seq++;
	w->totals.nr_segments++;
	w->totals.raw_bytes += h->usize;
	w->totals.comp_bytes += PPF_SEG_HDR_SZ + plen;
	if (h->kind != PPF_SEG_INDEX && (rc = index_add(w, &e)))
		return rc;
	return 0;
}

/* Write the digest of the EVENTS segments since the last one (none: nothing). */
static int digest_emit(struct ppf_writer *w)
{
	struct ppf_seg_hdr h = { .kind = PPF_SEG_DIGEST };
	int rc;

	if (w->err)
		return w->err;
	if (!w->dig.nr_segs)
		return 0;
	h.first_ns = w->dig.first_ns;
	h.last_ns = w->dig.last_ns;
	h.nr_records = w->dig.nr_records;
	rc = seg_emit(w, &h, w->dig.out.data, w->dig.out.len);
	ppf_digest_clear(&w->dig);
	return rc;
}

/* Compress, checksum and write the open segment. */
int ppf_writer_segment_close(struct ppf_writer *w)
{
	struct ppf_seg_hdr h = { 0 };
	int rc;

	if (!w->open)
		return 0;
	if (w->err)
		return w->err;
	h.kind = w->kind;
	h.flags = PPF_SEGF_CPU_TIME | PPF_SEGF_DELTA_ADDR | PPF_SEGF_XOR_CPU | PPF_SEGF_USTACK_RUNS;
	if (w->tcol.len) {
		/*
		 * The time column after the records, its length last: the
		 * records, all alike but for their times, then compress to long
		 * matches, and the times to what their entropy costs (1.1-1.9
		 * -> 0.6-0.9 bytes an event on a syscall storm).
		 */
		rc = ppf_wbuf_reserve(&w->seg, w->tcol.len + 4);
		if (rc)
			return ppf_writer_fail(w, rc, "segment");
		wb_bytes(&w->seg, w->tcol.data, w->tcol.len);
		for (int i = 0; i < 4; i++)
			wb_u8(&w->seg, (uint8_t)(w->tcol.len >> (8 * i)));	/* u32, little-endian */
		h.flags |= PPF_SEGF_TIME_COL;
	}
	h.first_ns = w->first_ns;
	h.last_ns = w->last_ns;
	h.nr_records = w->nr_records;
	h.nr_samples = w->nr_samples;
	rc = seg_emit(w, &h, w->seg.data, w->seg.len);
	if (rc)
		return rc;
	bool digest = h.kind == PPF_SEG_EVENTS && !w->opts.no_digest;
	if (digest && (rc = ppf_digest_seg_end(&w->dig, &h, (uint32_t)w->nr_stacks)))
		return ppf_writer_fail(w, rc, "digest");
	segment_reset(w);
	/* a digest of digest_segs segments, or of about a segment's bytes */
	if (digest && (w->dig.nr_segs >= w->opts.digest_segs ||
		       w->dig.out.len >= w->opts.seg_max_raw))
		return digest_emit(w);
	return 0;
}

int ppf_writer_put_segment(struct ppf_writer *w, const void *seg, size_t len)
{
	const uint8_t *p = seg;
	struct ppf_seg_hdr h;
	uint8_t hdr[PPF_SEG_HDR_SZ];
	int rc;

	if (w->err)
		return w->err;
	if (len < PPF_SEG_HDR_SZ)
		return PP_EBAD_LENGTH;
	rc = ppf_seg_hdr_decode(p, &h);
	if (rc)
		return rc;
	if (h.csize != len - PPF_SEG_HDR_SZ || h.kind == PPF_SEG_INDEX)
		return PP_EBAD_LENGTH;
	if (ppf_crc32c(0, p + PPF_SEG_HDR_SZ, h.csize) != h.payload_crc)
		return PP_EBAD_CRC;
	rc = ppf_writer_segment_close(w);
	/* this writer's digest before: its segments' entries are looked for in the first after them */
	if (!rc)
		rc = digest_emit(w);
	if (rc)
		return rc;
	h.seq = w->seq;
	ppf_seg_hdr_encode(&h, hdr);

	struct ppf_index_entry e = {
		.offset = w->offset, .kind = h.kind, .seq = h.seq, .first_ns = h.first_ns,
		.last_ns = h.last_ns, .nr_records = h.nr_records,
	};
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)(p + PPF_SEG_HDR_SZ), h.csize } };
	rc = write_all(w, iov, 2);
	if (rc)
		return rc;
	w->seq++;
	w->totals.nr_segments++;
	w->totals.raw_bytes += h.usize;
	w->totals.comp_bytes += len;
	w->totals.nr_samples += h.nr_samples;
	if (h.nr_records && h.last_ns > w->file_last_ns)
		w->file_last_ns = h.last_ns;
	return index_add(w, &e);
}

int ppf_writer_begin(struct ppf_writer *w, enum ppf_seg_kind kind)
{
	if (w->err)
		return w->err;
	if (w->open && w->kind == (uint32_t)kind)
		return 0;
	w->meta_full = false;
	int rc = ppf_writer_segment_close(w);
	if (rc)
		return rc;
	w->open = true;
	w->kind = kind;
	w->opened_mono_ns = w->opts.seg_max_age_ns ? mono_ns() : 0;
	return 0;
}

int ppf_writer_flush(struct ppf_writer *w)
{
	return w->err ? w->err : ppf_writer_segment_close(w);
}

int ppf_writer_flush_digest(struct ppf_writer *w)
{
	int rc = w->err ? w->err : ppf_writer_segment_close(w);

	return rc ? rc : digest_emit(w);
}

int ppf_writer_tick(struct ppf_writer *w)
{
	if (w->err)
		return w->err;
	if (w->open && w->opts.seg_max_age_ns && w->nr_records &&
	    mono_ns() - w->opened_mono_ns >= w->opts.seg_max_age_ns)
		return ppf_writer_segment_close(w);
	return 0;
}

/*
 * Start a record of @type in a segment of @kind; the body is built in
 * w->body (reserved for @max_body bytes) and committed by ppf_writer_rec_end().
 */
int ppf_writer_rec_begin(struct ppf_writer *w, enum ppf_seg_kind kind, size_t max_body)
{
	int rc;

	if (w->err)
		return w->err;
	if (!w->open || w->kind != (uint32_t)kind) {
		rc = ppf_writer_begin(w, kind);
		if (rc)
			return rc;
	}
	if (max_body > PPF_SEG_MAX_RAW / 4)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "record too large");
	w->body.len = 0;
	rc = ppf_wbuf_reserve(&w->body, max_body);
	return rc ? ppf_writer_fail(w, rc, "record") : 0;
}

int ppf_writer_rec_end(struct ppf_writer *w, uint8_t type)
{
	int rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + w->body.len);

	if (rc)
		return ppf_writer_fail(w, rc, "segment");
	wb_u8(&w->seg, type);
	wb_varint(&w->seg, w->body.len);
	wb_bytes(&w->seg, w->body.data, w->body.len);
	/* every record of an EVENTS segment but SAMPLE and STACK is side band, and timed */
	if (w->kind == PPF_SEG_EVENTS && !w->opts.no_digest &&
	    (rc = ppf_digest_copy(&w->dig, type, w->last_ns, w->first_ns, w->body.data, w->body.len)))
		return ppf_writer_fail(w, rc, "digest");
	return ppf_writer_rec_done(w);
}

static int write_index(struct ppf_writer *w)
{
	uint64_t index_off;
	uint8_t trailer[PPF_TRAILER_SZ];
	int rc;

	rc = ppf_writer_segment_close(w);
	if (!rc)
		rc = digest_emit(w);
	if (rc)
		return rc;
	index_off = w->offset;
	rc = ppf_writer_begin(w, PPF_SEG_INDEX);
	for (size_t i = 0; !rc && i < w->nr_idx; i++) {
		const struct ppf_index_entry *e = &w->idx[i];
		rc = ppf_writer_rec_begin(w, PPF_SEG_INDEX, 6 * PPF_VARINT_MAX);
		if (rc)
			break;
		wb_varint(&w->body, e->offset);
		wb_varint(&w->body, e->kind);
		wb_varint(&w->body, e->seq);
		wb_varint(&w->body, e->first_ns);
		wb_varint(&w->body, e->last_ns - e->first_ns);
		wb_varint(&w->body, e->nr_records);
		/* the index is one segment whatever its size: bypass rec_end's split */
		rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + w->body.len);
		if (rc)
			return ppf_writer_fail(w, rc, "index");
		wb_u8(&w->seg, PPF_REC_INDEX_ENTRY);
		wb_varint(&w->seg, w->body.len);
		wb_bytes(&w->seg, w->body.data, w->body.len);
		w->nr_records++;
	}
	if (!rc)
		rc = ppf_writer_segment_close(w);
	if (rc)
		return rc;
	put_le64(trailer, index_off);
	put_le32(trailer + 8, ppf_crc32c(0, trailer, 8));
	put_le32(trailer + 12, PPF_TRAILER_MAGIC);
	struct iovec iov = { trailer, sizeof(trailer) };
	return write_all(w, &iov, 1);
}

int ppf_writer_close(struct ppf_writer *w)
{
	int rc;

	if (!w)
		return 0;
	rc = w->err;
	if (!rc && w->cctx)
		rc = w->opts.no_index ? ppf_writer_segment_close(w) : write_index(w);
	if (!rc && w->cctx && w->opts.no_index)
		rc = digest_emit(w);
	if (w->own_fd && close(w->fd) && !rc)
		rc = -errno;
	writer_free(w);
	return rc;
}

static void writer_free(struct ppf_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	ppf_wbuf_release(&w->seg);
	ppf_wbuf_release(&w->body);
	ppf_wbuf_release(&w->cbuf);
	ppf_wbuf_release(&w->tcol);
	free(w->stab);
	ppf_arena_release(&w->frames);
	for (size_t i = 0; i < w->cap_prev; i++)
		free(w->prev_raw[i]);
	free(w->prev_raw);
	free(w->prev_sz);
	free(w->prev_gen);
	free(w->cpu_last);
	free(w->cpu_gen);
	ppf_ctrtab_release(&w->ctr);
	ppf_ustk_release(&w->ustk);
	ppf_digest_w_release(&w->dig);
	free(w->idx);
	free(w);
}
