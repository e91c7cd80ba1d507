/* SPDX-License-Identifier: MIT */
/*
 * reader-segment.c - segments out of a file or a stream, whatever damage they met.
 *
 * The input is buffered (ibuf), and read front to back: a header that fails its
 * CRC is not trusted and the reader resyncs on the next offset that holds a
 * valid one; a payload that fails its CRC or does not decompress to its size is
 * skipped whole; a file that ends inside a segment ends the read at the last
 * whole one.  Each is a problem in the stats.  Before a window, EVENTS segments
 * come from the digest that describes them when there is one (else skimmed),
 * and with PPF_READ_AHEAD the next zstd segment is decompressed on a helper
 * thread while the caller decodes this one.
 * Not here: records (reader.c, decode.c) or the index (reader-index.c).
 */
#include <stdio.h>
#include <unistd.h>

#include "format/reader-internal.h"
#include "format/segq.h"

/* Records lost with a skipped segment of header @h: a digest's are copies, none lost. */
static uint32_t lost(const struct ppf_seg_hdr *h)
{
	return h->kind == PPF_SEG_DIGEST ? 0 : h->nr_records;
}

/* A problem at @off: @kind 0 when the header there is not trusted. */
void ppf_reader_problem(struct ppf_reader *r, uint64_t seq, uint64_t off, int err, uint32_t nr,
		    uint32_t kind)
{
	if (off < r->win_from)
		return;		/* before the window: the reader of that part reports it */
	if (r->stats.nr_problems < PPF_MAX_PROBLEMS) {
		r->problems[r->stats.nr_problems++] = (struct ppf_problem){ seq, off, err, nr, kind };
		r->stats.problems = r->problems;
	}
	if (err != PP_ETRUNCATED) {
		r->stats.nr_corrupt++;
		r->stats.records_lost += nr;
	}
	ppf_reader_set_msg(r, "segment %llu at offset %llu: %s", (unsigned long long)seq,
		(unsigned long long)off, pp_strerror(err));
}

/*
 * How much to read at once into a buffer of @ilen bytes that needs @n: all it holds, but
 * before a part's window (sparse_next()) only what is asked, rounded up to a page - the
 * segments there are stepped over from their headers, and a full buffer would be thrown away
 * at the next step.
 */
static size_t fill_size(const struct ppf_reader *r, size_t n)
{
	size_t room = PPF_IBUF_SZ - r->ilen, want;

	if (!r->checks || r->pos >= r->win_from)
		return room;
	want = (n - r->ilen + 4095) & ~(size_t)4095;
	return want < room ? want : room;
}

/* Make at least @n bytes available at ibuf+ioff; return how many are (may be fewer at EOF). */
size_t ppf_reader_in_fill(struct ppf_reader *r, size_t n)
{
	if (n > PPF_IBUF_SZ)
		n = PPF_IBUF_SZ;
	if (r->ilen - r->ioff >= n || r->eof)
		return r->ilen - r->ioff;
	memmove(r->ibuf, r->ibuf + r->ioff, r->ilen - r->ioff);
	r->ilen -= r->ioff;
	r->ioff = 0;
	while (r->ilen < n && !r->eof) {
		ssize_t got = read(r->fd, r->ibuf + r->ilen, fill_size(r, n));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r->eof = true;
			break;
		}
		r->ilen += (size_t)got;
	}
	return r->ilen - r->ioff;
}

/* Consume @n bytes; seeks over them when the fd allows.  Return bytes consumed. */
uint64_t ppf_reader_in_skip(struct ppf_reader *r, uint64_t n)
{
	uint64_t done = 0;
	size_t have = r->ilen - r->ioff;

	if (n <= have) {
		r->ioff += n;
		r->pos += n;
		return n;
	}
	done = have;
	r->ioff = r->ilen = 0;
	r->pos += have;
	n -= have;
	if (r->seekable) {
		off_t end = lseek(r->fd, 0, SEEK_END);
		uint64_t left = end > (off_t)r->pos ? (uint64_t)end - r->pos : 0;
		uint64_t step = n < left ? n : left;
		if (lseek(r->fd, (off_t)(r->pos + step), SEEK_SET) < 0)
			return done;
		r->pos += step;
		if (step < n)
			r->eof = true;
		return done + step;
	}
	while (n) {
		size_t got = ppf_reader_in_fill(r, n < PPF_IBUF_SZ ? n : PPF_IBUF_SZ);
		if (!got)
			break;
		size_t take = got < n ? got : (size_t)n;
		r->ioff += take;
		r->pos += take;
		n -= take;
		done += take;
	}
	return done;
}

/* Read exactly @n bytes into @dst (from the buffer, then the fd); return bytes read. */
static size_t in_read(struct ppf_reader *r, uint8_t *dst, size_t n)
{
	size_t have = r->ilen - r->ioff, got = 0;

	if (have) {
		got = have < n ? have : n;
		memcpy(dst, r->ibuf + r->ioff, got);
		r->ioff += got;
	}
	while (got < n && !r->eof) {
		ssize_t k = read(r->fd, dst + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->eof = true;
			break;
		}
		got += (size_t)k;
	}
	r->pos += got;
	return got;
}

static bool at_trailer(struct ppf_reader *r, size_t avail)
{
	const uint8_t *t = r->ibuf + r->ioff;

	return avail == PPF_TRAILER_SZ && get_le32(t + 12) == PPF_TRAILER_MAGIC &&
	       get_le32(t + 8) == ppf_crc32c(0, t, 8);
}

static int end_of_data(struct ppf_reader *r, size_t avail)
{
	r->done = true;
	if (avail == 0 || at_trailer(r, avail)) {
		r->clean_end = avail != 0;
		r->stats.truncated = !r->clean_end;
		r->stats.truncated_at = r->pos;
		if (r->stats.truncated && (r->flags & PPF_READ_STRICT)) {
			ppf_reader_set_msg(r, "capture ends without a trailer after segment %llu",
				(unsigned long long)r->stats.last_seq);
			return PP_ETRUNCATED;
		}
		return PPF_END;
	}
	r->stats.truncated = true;
	r->stats.cut_mid_segment = true;
	r->stats.truncated_at = r->pos;
	ppf_reader_problem(r, r->stats.nr_segments ? r->stats.last_seq + 1 : 0, r->pos,
			   PP_ETRUNCATED, 0, 0);
	return (r->flags & PPF_READ_STRICT) ? PP_ETRUNCATED : PPF_END;
}

/* After a header that cannot be trusted: find the next offset holding a valid one. */
static void resync(struct ppf_reader *r)
{
	struct ppf_seg_hdr h;

	ppf_reader_in_skip(r, 1);
	for (;;) {
		size_t avail = ppf_reader_in_fill(r, PPF_SEG_HDR_SZ);
		if (avail < PPF_SEG_HDR_SZ)
			return;
		const uint8_t *p = r->ibuf + r->ioff;
		const uint8_t *m = memchr(p, 'P', avail - PPF_SEG_HDR_SZ + 1);
		if (!m) {
			ppf_reader_in_skip(r, avail - PPF_SEG_HDR_SZ + 1);
			continue;
		}
		ppf_reader_in_skip(r, (uint64_t)(m - p));
		if (ppf_reader_in_fill(r, PPF_SEG_HDR_SZ) < PPF_SEG_HDR_SZ)
			return;
		if (ppf_seg_hdr_decode(r->ibuf + r->ioff, &h) == 0)
			return;
		ppf_reader_in_skip(r, 1);
	}
}

/*
 * PPF_READ_AHEAD: after handing out a segment, take the next one from the
 * input and start its decompression - only when nothing about it needs the
 * careful path of ppf_reader_next_segment(): a valid header, a zstd payload
 * whole in the input buffer with a good CRC and the size the header says,
 * and not one that seeking would skip.  Otherwise the input is left as it was.
 */
static void read_ahead(struct ppf_reader *r)
{
	struct ppf_seg_hdr h;

	if (!(r->flags & PPF_READ_AHEAD) || !r->seekable || r->ahead || r->done)
		return;
	if (ppf_reader_in_fill(r, PPF_SEG_HDR_SZ) < PPF_SEG_HDR_SZ ||
	    ppf_seg_hdr_decode(r->ibuf + r->ioff, &h) || !(h.flags & PPF_SEGF_ZSTD) ||
	    (size_t)PPF_SEG_HDR_SZ + h.csize > PPF_IBUF_SZ ||
	    (r->seek_ns && h.kind == PPF_SEG_EVENTS && h.last_ns < r->seek_ns) ||
	    (r->records && h.kind == PPF_SEG_DIGEST && !(r->flags & PPF_READ_DIGESTS)) ||
	    (r->nr_dig && h.kind == PPF_SEG_EVENTS && r->pos < r->win_from))
		return;
	if (ppf_reader_in_fill(r, PPF_SEG_HDR_SZ + h.csize) < PPF_SEG_HDR_SZ + h.csize)
		return;
	const uint8_t *c = r->ibuf + r->ioff + PPF_SEG_HDR_SZ;
	if (ppf_crc32c(0, c, h.csize) != h.payload_crc ||
	    ZSTD_getFrameContentSize(c, h.csize) != h.usize)
		return;
	r->next_payload.len = r->next_raw.len = 0;
	if (ppf_wbuf_reserve(&r->next_payload, h.csize ? h.csize : 1) ||
	    ppf_wbuf_reserve(&r->next_raw, h.usize ? h.usize : 1))
		return;
	if (!r->ra && ppf_ra_start(&r->ra)) {
		r->flags &= ~(unsigned)PPF_READ_AHEAD;	/* no thread: read as without */
		return;
	}
	memcpy(r->next_payload.data, c, h.csize);
	r->next_hdr = h;
	r->next_off = r->pos;
	ppf_reader_in_skip(r, PPF_SEG_HDR_SZ + h.csize);
	ppf_ra_submit(r->ra, r->next_payload.data, h.csize, r->next_raw.data, h.usize);
	r->ahead = true;
}

/* Wait for the segment read ahead and drop it (rewind). */
void ppf_reader_ahead_drop(struct ppf_reader *r)
{
	if (r->ahead) {
		ppf_ra_wait(r->ra);
		r->ahead = false;
	}
}

/* Hand out the segment of header @h at @off, payload (decompressed) @data. */
static int segment_out(struct ppf_reader *r, const struct ppf_seg_hdr *h, uint64_t off,
		       const uint8_t *data, const struct ppf_segment **out)
{
	r->seg = (struct ppf_segment){
		.kind = h->kind, .flags = h->flags, .seq = h->seq, .offset = off,
		.first_ns = h->first_ns, .last_ns = h->last_ns, .csize = h->csize,
		.usize = h->usize, .nr_records = h->nr_records, .nr_samples = h->nr_samples,
		.payload_crc = h->payload_crc, .data = data,
	};
	r->stats.nr_segments++;
	r->stats.raw_bytes += h->usize;
	r->stats.comp_bytes += PPF_SEG_HDR_SZ + h->csize;
	r->stats.last_seq = h->seq;
	if (h->kind == PPF_SEG_EVENTS && h->last_ns > r->stats.last_time_ns)
		r->stats.last_time_ns = h->last_ns;
	*out = &r->seg;
	read_ahead(r);
	return 0;
}

/* Read, check and parse the DIGEST segment at @off; any problem leaves none loaded. */
static int digest_load(struct ppf_reader *r, uint64_t off)
{
	uint8_t hb[PPF_SEG_HDR_SZ];
	struct ppf_seg_hdr h;
	const uint8_t *data;
	int rc;

	free(r->dig_grp);
	r->dig_grp = NULL;
	r->dig_nr_grp = 0;
	r->dig_at = off;
	if (pread(r->fd, hb, sizeof(hb), (off_t)off) != (ssize_t)sizeof(hb) ||
	    ppf_seg_hdr_decode(hb, &h) || h.kind != PPF_SEG_DIGEST)
		return 0;
	r->dig_c.len = 0;
	if ((rc = ppf_wbuf_reserve(&r->dig_c, h.csize ? h.csize : 1)))
		return rc;
	if (pread(r->fd, r->dig_c.data, h.csize, (off_t)(off + PPF_SEG_HDR_SZ)) != (ssize_t)h.csize ||
	    ppf_crc32c(0, r->dig_c.data, h.csize) != h.payload_crc)
		return 0;
	data = r->dig_c.data;
	if (h.flags & PPF_SEGF_ZSTD) {
		r->dig_u.len = 0;
		if ((rc = ppf_wbuf_reserve(&r->dig_u, h.usize ? h.usize : 1)))
			return rc;
		if (ZSTD_getFrameContentSize(data, h.csize) != h.usize)
			return 0;
		size_t got = ZSTD_decompressDCtx(r->dctx, r->dig_u.data, h.usize, data, h.csize);
		if (ZSTD_isError(got) || got != h.usize)
			return 0;
		data = r->dig_u.data;
	}
	r->stats.digest_raw_bytes += h.usize;
	rc = ppf_digest_parse(data, h.usize, &r->dig_grp, &r->dig_nr_grp);
	return rc == -ENOMEM ? rc : 0;
}

/*
 * The entry for the EVENTS segment of header @h at @off in the first DIGEST after it,
 * or NULL (no digest after it, a digest not to be used, no entry that agrees).
 */
static const struct ppf_digest_grp *digest_find(struct ppf_reader *r, uint64_t off,
						const struct ppf_seg_hdr *h)
{
	size_t lo = 0, hi = r->nr_dig;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->dig_off[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nr_dig)
		return NULL;
	if (r->dig_at != r->dig_off[lo] && digest_load(r, r->dig_off[lo]))
		return NULL;	/* out of memory: the skim, which needs less */
	return r->dig_grp ? ppf_digest_find(r->dig_grp, r->dig_nr_grp, h) : NULL;
}

/*
 * Before the window of a file whose segments other parts' readers check
 * (ppf_reader_share_checks()): the next segment from its header alone, read with pread()
 * past the input buffer, which would otherwise fill with the payloads that are skipped -
 * every byte before the window read again by every part.  Return: 1 the segment is out,
 * from its digest; 2 it was skipped as the loop below would; 0 the loop below reads it.
 */
static int sparse_next(struct ppf_reader *r, const struct ppf_segment **out)
{
	uint8_t hb[PPF_SEG_HDR_SZ];
	const struct ppf_digest_grp *g = NULL;
	struct ppf_seg_hdr h;
	uint64_t off = r->pos;
	bool skip;

	if (r->eof || pread(r->fd, hb, sizeof(hb), (off_t)off) != (ssize_t)sizeof(hb) ||
	    ppf_seg_hdr_decode(hb, &h) || h.kind != PPF_SEG_EVENTS)
		return 0;
	skip = (r->seek_ns && h.last_ns < r->seek_ns) || h.nr_records == h.nr_samples;
	if (!skip && (!r->nr_dig || !ppf_checks_passed(r->checks, off) ||
		      !(g = digest_find(r, off, &h))))
		return 0;
	if (lseek(r->fd, (off_t)(off + PPF_SEG_HDR_SZ + h.csize), SEEK_SET) < 0)
		return 0;
	r->ioff = r->ilen = 0;	/* what it held is before the new position */
	r->pos = off + PPF_SEG_HDR_SZ + h.csize;
	if (skip)
		return 2;
	h.flags = 0;	/* the copies: dt in each body, from first_ns */
	h.usize = (uint32_t)g->len;
	r->stats.digest_segments++;
	segment_out(r, &h, off, g->data, out);
	return 1;
}

/* A step of ppf_reader_next_segment() that handed nothing out: the loop reads on. */
#define SEG_READ_ON 2

/*
 * The segment read ahead: what the loop of ppf_reader_next_segment() would have
 * made of it.  Return: 0 with *@out, SEG_READ_ON (skipped, or bad and not strict)
 * or PP_EBAD_ZSTD.
 */
static int ahead_take(struct ppf_reader *r, const struct ppf_segment **out)
{
	size_t got = ppf_ra_wait(r->ra);
	struct ppf_wbuf t = r->raw;
	struct ppf_seg_hdr h = r->next_hdr;

	r->ahead = false;
	r->raw = r->next_raw;	/* the segment before is done with: its buffer goes next */
	r->next_raw = t;
	/* seeking began after it was read: skipped, as the loop would have */
	if (r->seek_ns && h.kind == PPF_SEG_EVENTS && h.last_ns < r->seek_ns)
		return SEG_READ_ON;
	if (ZSTD_isError(got) || got != h.usize) {
		ppf_reader_problem(r, h.seq, r->next_off, PP_EBAD_ZSTD, lost(&h), h.kind);
		return (r->flags & PPF_READ_STRICT) ? PP_EBAD_ZSTD : SEG_READ_ON;
	}
	return segment_out(r, &h, r->next_off, r->raw.data, out);
}

/*
 * A segment whose payload is not even read: before the seek time; skimmed (before
 * the window) and holding SAMPLEs only, so nothing in it for the side band, and no
 * time after it counts from its records; or a kind passed over (ppf_reader_pass_over()).
 */
static bool passed_over(const struct ppf_reader *r, const struct ppf_seg_hdr *h, uint64_t off)
{
	return (r->seek_ns && h->kind == PPF_SEG_EVENTS && h->last_ns < r->seek_ns) ||
	       (h->kind == PPF_SEG_EVENTS && off < r->win_from && h->nr_records == h->nr_samples) ||
	       (off < r->pass_before && h->kind < 32 && (r->pass_kinds & (1u << h->kind)));
}

/*
 * Read the payload of the segment of header @h at @off into r->payload and check it.
 * Return: 0, SEG_READ_ON (a bad CRC, not strict), PPF_END or PP_ETRUNCATED (cut),
 * PP_EBAD_CRC (strict) or -ENOMEM.
 */
static int payload_read(struct ppf_reader *r, const struct ppf_seg_hdr *h, uint64_t off)
{
	int rc;

	r->payload.len = 0;
	if ((rc = ppf_wbuf_reserve(&r->payload, h->csize ? h->csize : 1)))
		return rc;
	if (in_read(r, r->payload.data, h->csize) < h->csize) {
		r->pos = off;	/* report the cut at the segment's start */
		r->stats.cut_mid_segment = true;
		r->stats.truncated = true;
		r->stats.truncated_at = off;
		r->done = true;
		ppf_reader_problem(r, h->seq, off, PP_ETRUNCATED, h->nr_records, h->kind);
		return (r->flags & PPF_READ_STRICT) ? PP_ETRUNCATED : PPF_END;
	}
	if (ppf_crc32c(0, r->payload.data, h->csize) != h->payload_crc) {
		ppf_reader_problem(r, h->seq, off, PP_EBAD_CRC, lost(h), h->kind);
		return (r->flags & PPF_READ_STRICT) ? PP_EBAD_CRC : SEG_READ_ON;
	}
	return 0;
}

/*
 * r->payload decompressed into r->raw, the size its header @h says.
 * Return: 0, SEG_READ_ON (it does not, not strict), PP_EBAD_ZSTD (strict) or -ENOMEM.
 */
static int payload_inflate(struct ppf_reader *r, const struct ppf_seg_hdr *h, uint64_t off)
{
	int rc;

	r->raw.len = 0;
	if ((rc = ppf_wbuf_reserve(&r->raw, h->usize ? h->usize : 1)))
		return rc;
	unsigned long long fcs = ZSTD_getFrameContentSize(r->payload.data, h->csize);
	size_t got = fcs == h->usize ? ZSTD_decompressDCtx(r->dctx, r->raw.data, h->usize,
							  r->payload.data, h->csize)
				    : (size_t)-1;
	if (ZSTD_isError(got) || got != h->usize) {
		ppf_reader_problem(r, h->seq, off, PP_EBAD_ZSTD, lost(h), h->kind);
		return (r->flags & PPF_READ_STRICT) ? PP_EBAD_ZSTD : SEG_READ_ON;
	}
	return 0;
}

/*
 * The segment of header @h at @off, its payload read and checked, handed out.
 * Return: 0 with *@out, or what payload_inflate() returns.
 */
static int segment_checked(struct ppf_reader *r, const struct ppf_seg_hdr *h, uint64_t off,
			   const struct ppf_segment **out)
{
	const uint8_t *data = r->payload.data;
	int rc;

	/* a digest, to a reader of records: for parts (below), checked and passed over */
	if (h->kind == PPF_SEG_DIGEST && r->records && !(r->flags & PPF_READ_DIGESTS)) {
		r->stats.nr_digests++;
		r->stats.raw_bytes += h->usize;
		r->stats.comp_bytes += PPF_SEG_HDR_SZ + h->csize;
		return SEG_READ_ON;
	}
	if (h->kind == PPF_SEG_EVENTS && off < r->win_from) {
		/* before the window: its side band from a digest that agrees, else a skim */
		const struct ppf_digest_grp *g = r->nr_dig ? digest_find(r, off, h) : NULL;

		if (g) {
			struct ppf_seg_hdr dh = *h;

			dh.flags = 0;	/* the copies: dt in each body, from first_ns */
			dh.usize = (uint32_t)g->len;
			r->stats.digest_segments++;
			return segment_out(r, &dh, off, g->data, out);
		}
		r->stats.skim_segments++;
		r->stats.skim_raw_bytes += h->usize;
	}
	if (h->flags & PPF_SEGF_ZSTD) {
		if ((rc = payload_inflate(r, h, off)))
			return rc;
		data = r->raw.data;
	}
	return segment_out(r, h, off, data, out);
}

/*
 * The piece @it of a queue (ppf_reader_open_segq()) at @off, header @h: a segment handed
 * out as the loop of ppf_reader_next_segment() would, its payload where it lies.
 * Return: as segment_checked().
 */
static int segq_segment(struct ppf_reader *r, const struct ppf_segq_item *it,
			const struct ppf_seg_hdr *h, uint64_t off, const struct ppf_segment **out)
{
	if (passed_over(r, h, off))
		return SEG_READ_ON;
	if (!(h->flags & PPF_SEGF_ZSTD) && !(h->kind == PPF_SEG_DIGEST && r->records &&
					      !(r->flags & PPF_READ_DIGESTS)))
		return segment_out(r, h, off, it->body, out);
	/* compressed (a writer not in_memory), or a digest passed over: the file's path */
	r->payload.len = 0;
	if (ppf_wbuf_reserve(&r->payload, h->csize ? h->csize : 1))
		return -ENOMEM;
	memcpy(r->payload.data, it->body, h->csize);
	return segment_checked(r, h, off, out);
}

int ppf_reader_segq_next(struct ppf_reader *r, const struct ppf_segment **out)
{
	struct ppf_segq_item *it;
	struct ppf_seg_hdr h;
	int rc;

	for (;;) {
		if (r->q_held)
			ppf_segq_release(r->q);
		r->q_held = false;
		if (r->done)
			return PPF_END;
		rc = ppf_segq_pop(r->q, &it, r->errmsg, sizeof(r->errmsg));
		if (rc) {
			/* the writer's close: whole, or its error after the last segment */
			r->done = true;
			r->clean_end = rc == PPF_END;
			r->stats.truncated = !r->clean_end;
			r->stats.truncated_at = r->pos;
			return rc;
		}
		r->q_held = true;
		uint64_t off = r->pos;

		r->pos += it->head_sz + it->body_sz;
		if (it->what == PPF_CHUNK_TRAILER)
			continue;
		if (it->what != PPF_CHUNK_SEGMENT || (rc = ppf_seg_hdr_decode(it->head, &h)) ||
		    h.csize != it->body_sz) {
			rc = rc ? rc : PP_EBAD_LENGTH;
			ppf_reader_problem(r, r->stats.last_seq + 1, off, rc, 0, 0);
			return rc;	/* not a writer's: nothing after it to trust */
		}
		rc = segq_segment(r, it, &h, off, out);
		if (rc != SEG_READ_ON)
			return rc;
	}
}

int ppf_reader_next_segment(struct ppf_reader *r, const struct ppf_segment **out)
{
	struct ppf_seg_hdr h;
	int rc;

	r->in_seg = false;
	if (r->q)
		return ppf_reader_segq_next(r, out);
	if (r->ahead && (rc = ahead_take(r, out)) != SEG_READ_ON)
		return rc;
	for (;;) {
		if (r->done)
			return PPF_END;
		if (r->win_to && r->pos >= r->win_to) {
			r->done = true;	/* the window's end: not a cut */
			return PPF_END;
		}
		if (r->seek_ns && r->nr_idx && r->seekable)
			ppf_reader_index_skip(r);
		if (r->checks && r->seekable && r->pos < r->win_from) {
			int got = sparse_next(r, out);

			if (got == 1)
				return 0;
			if (got == 2)
				continue;
		}
		size_t avail = ppf_reader_in_fill(r, PPF_SEG_HDR_SZ);
		if (avail < PPF_SEG_HDR_SZ)
			return end_of_data(r, avail);
		uint64_t off = r->pos;
		rc = ppf_seg_hdr_decode(r->ibuf + r->ioff, &h);
		if (rc) {
			ppf_reader_problem(r, r->stats.nr_segments ? r->stats.last_seq + 1 : 0, off,
					   rc, 0, 0);
			if (r->flags & PPF_READ_STRICT)
				return rc;
			resync(r);
			continue;
		}
		ppf_reader_in_skip(r, PPF_SEG_HDR_SZ);
		if (passed_over(r, &h, off)) {
			if (ppf_reader_in_skip(r, h.csize) < h.csize)
				return end_of_data(r, 1);
			continue;
		}
		rc = payload_read(r, &h, off);
		if (!rc) {
			if (r->checks)
				ppf_checks_pass(r->checks, off);
			rc = segment_checked(r, &h, off, out);
		}
		if (rc != SEG_READ_ON)
			return rc;
	}
}
