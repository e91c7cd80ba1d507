/* SPDX-License-Identifier: MIT */
/*
 * reader.c - reading a capture: segments from a file or a stream, records
 * from segments.
 *
 * The reader scans segments front to back; that is the only way to read a
 * stream, and it is also how a file cut off or damaged anywhere is read:
 *  - a header that fails its CRC is not trusted, and the reader resyncs on
 *    the next offset that holds a valid segment header;
 *  - a payload that fails its CRC, or does not decompress to exactly the
 *    size its (trusted) header says, is skipped whole;
 *  - a file that ends inside a segment ends the read at the last whole one.
 * Each of these is recorded as a problem (segment number, offset, records
 * lost) in the stats.  Every length comes from a CRC-checked header and is
 * bounded by PPF_SEG_MAX_* before anything is allocated.  The index and
 * trailer, when present, only serve ppf_reader_seek_time() and has_index.
 *
 * With PPF_READ_AHEAD (files only), handing out a segment also reads the
 * next one and, when it is a whole, CRC-clean zstd segment that fits the
 * input buffer, starts its decompression on a helper thread (readahead.c);
 * anything else about it - a bad header, a cut, a CRC failure - is left in
 * the input for the next call to meet exactly as it would without.
 *
 * DIGEST segments are passed over unread by ppf_reader_next() (handed out,
 * entries and copies, with PPF_READ_DIGESTS: pp-analyze dump); before a
 * window (ppf_reader_set_window()) with the digests' offsets given
 * (ppf_reader_set_digests()), an EVENTS segment that the first digest after
 * it describes is read (its checksum) but not decompressed: its side band
 * comes from the digest, loaded with pread() beside the sequential read.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "format/internal.h"

#define IBUF_SZ (256u << 10)
#define MAX_PROBLEMS 64

struct ppf_reader {
	int fd;
	bool own_fd;
	bool seekable;
	unsigned flags;
	char errmsg[256];
	struct ppf_file_info info;
	struct ppf_read_stats stats;
	struct ppf_problem problems[MAX_PROBLEMS];

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
};

static void set_msg(struct ppf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_msg(struct ppf_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
}

/* Records lost with a skipped segment of header @h: a digest's are copies, none lost. */
static uint32_t lost(const struct ppf_seg_hdr *h)
{
	return h->kind == PPF_SEG_DIGEST ? 0 : h->nr_records;
}

/* A problem at @off: @kind 0 when the header there is not trusted. */
static void problem(struct ppf_reader *r, uint64_t seq, uint64_t off, int err, uint32_t nr,
		    uint32_t kind)
{
	if (off < r->win_from)
		return;		/* before the window: the reader of that part reports it */
	if (r->stats.nr_problems < MAX_PROBLEMS) {
		r->problems[r->stats.nr_problems++] = (struct ppf_problem){ seq, off, err, nr, kind };
		r->stats.problems = r->problems;
	}
	if (err != PP_ETRUNCATED) {
		r->stats.nr_corrupt++;
		r->stats.records_lost += nr;
	}
	set_msg(r, "segment %llu at offset %llu: %s", (unsigned long long)seq,
		(unsigned long long)off, pp_strerror(err));
}

/* Make at least @n bytes available at ibuf+ioff; return how many are (may be fewer at EOF). */
static size_t in_fill(struct ppf_reader *r, size_t n)
{
	if (n > IBUF_SZ)
		n = IBUF_SZ;
	if (r->ilen - r->ioff >= n || r->eof)
		return r->ilen - r->ioff;
	memmove(r->ibuf, r->ibuf + r->ioff, r->ilen - r->ioff);
	r->ilen -= r->ioff;
	r->ioff = 0;
	while (r->ilen < n && !r->eof) {
		ssize_t got = read(r->fd, r->ibuf + r->ilen, IBUF_SZ - r->ilen);
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
static uint64_t in_skip(struct ppf_reader *r, uint64_t n)
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
		size_t got = in_fill(r, n < IBUF_SZ ? n : IBUF_SZ);
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

static int check_file_header(struct ppf_reader *r, const uint8_t *h, size_t n)
{
	if (n == 0) {
		set_msg(r, "empty file, not a pp capture");
		return PP_EBAD_MAGIC;
	}
	if (n < 8 || memcmp(h, PPF_FILE_MAGIC, 8)) {
		set_msg(r, "not a pp capture (bad magic)");
		return PP_EBAD_MAGIC;
	}
	if (n < PPF_FILE_HDR_SZ) {
		set_msg(r, "capture header is cut off after %zu bytes", n);
		return PP_ETRUNCATED;
	}
	if (get_le32(h + 60) != ppf_crc32c(0, h, 60)) {
		set_msg(r, "capture header is damaged (checksum mismatch)");
		return PP_EBAD_CRC;
	}
	if (get_le32(h + 16) != PPF_ENDIAN_TAG) {
		set_msg(r, "capture header has a bad byte-order tag");
		return PP_EBAD_MAGIC;
	}
	r->info.major = get_le16(h + 8);
	r->info.minor = get_le16(h + 10);
	r->info.flags = get_le32(h + 20);
	r->info.required_features = get_le64(h + 24);
	r->info.optional_features = get_le64(h + 32);
	r->info.created_ns = get_le64(h + 40);
	if (r->info.major > PPF_VERSION_MAJOR) {
		set_msg(r, "capture format %u.%u is newer than this reader's %u.%u: use a newer pp",
			r->info.major, r->info.minor, PPF_VERSION_MAJOR, PPF_VERSION_MINOR);
		return PP_EVERSION;
	}
	if (r->info.required_features & ~PPF_FEAT_REQUIRED_KNOWN) {
		set_msg(r, "capture needs features 0x%llx that this reader lacks: use a newer pp",
			(unsigned long long)(r->info.required_features & ~PPF_FEAT_REQUIRED_KNOWN));
		return PP_EFEATURE;
	}
	if (get_le16(h + 12) != PPF_FILE_HDR_SZ) {
		set_msg(r, "capture header has an unknown size");
		return PP_EBAD_LENGTH;
	}
	return 0;
}

static int collect_index(const struct ppf_record *rec, void *arg)
{
	struct ppf_reader *r = arg;

	if (rec->type != PPF_REC_INDEX_ENTRY)
		return 0;
	if (r->nr_idx && rec->u.index.offset <= r->idx[r->nr_idx - 1].offset)
		return PP_EBAD_RECORD;
	/* as many entries as the payload holds, whatever the header's nr_records says */
	if (r->nr_idx == PP_LIMIT_INDEX_ENTRIES)
		return PP_ELIMIT;
	if (r->nr_idx == r->cap_idx) {
		size_t cap = r->cap_idx ? 2 * r->cap_idx : 256;
		struct ppf_index_entry *n = realloc(r->idx, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->idx = n;
		r->cap_idx = cap;
	}
	r->idx[r->nr_idx++] = rec->u.index;
	return 0;
}

/* Read the index segment at @off; any problem leaves the reader without an index. */
static void load_index(struct ppf_reader *r, uint64_t off, uint64_t size)
{
	uint8_t hb[PPF_SEG_HDR_SZ];
	struct ppf_seg_hdr h;
	uint8_t *c = NULL, *u = NULL;

	if (pread(r->fd, hb, sizeof(hb), (off_t)off) != (ssize_t)sizeof(hb) ||
	    ppf_seg_hdr_decode(hb, &h) || h.kind != PPF_SEG_INDEX ||
	    off + PPF_SEG_HDR_SZ + h.csize > size)
		return;
	c = malloc(h.csize ? h.csize : 1);
	u = malloc(h.usize ? h.usize : 1);
	if (!c || !u ||
	    pread(r->fd, c, h.csize, (off_t)(off + PPF_SEG_HDR_SZ)) != (ssize_t)h.csize ||
	    ppf_crc32c(0, c, h.csize) != h.payload_crc)
		goto out;
	const uint8_t *data = c;
	if (h.flags & PPF_SEGF_ZSTD) {
		size_t got = ZSTD_decompressDCtx(r->dctx, u, h.usize, c, h.csize);
		if (ZSTD_isError(got) || got != h.usize)
			goto out;
		data = u;
	}
	if (ppf_segment_decode(data, h.usize, h.first_ns, h.flags, collect_index, r) == 0)
		r->info.has_index = true;
out:
	if (!r->info.has_index) {
		free(r->idx);
		r->idx = NULL;
		r->nr_idx = r->cap_idx = 0;
	}
	free(c);
	free(u);
}

/* With an index, jump over events segments that end before the seek time. */
static void index_skip(struct ppf_reader *r)
{
	size_t lo = 0, hi = r->nr_idx;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->idx[mid].offset < r->pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = lo;
	while (i < r->nr_idx && r->idx[i].offset == r->pos && r->idx[i].kind == PPF_SEG_EVENTS &&
	       r->idx[i].last_ns < r->seek_ns && i + 1 < r->nr_idx) {
		i++;
		in_skip(r, r->idx[i].offset - r->pos);
	}
}

/* The trailer is a hint: a damaged or absent one only means "no index". */
static void probe_trailer(struct ppf_reader *r)
{
	struct stat st;
	uint8_t t[PPF_TRAILER_SZ];

	if (fstat(r->fd, &st) || st.st_size < PPF_FILE_HDR_SZ + PPF_SEG_HDR_SZ + PPF_TRAILER_SZ)
		return;
	if (pread(r->fd, t, sizeof(t), st.st_size - PPF_TRAILER_SZ) != (ssize_t)sizeof(t))
		return;
	if (get_le32(t + 12) != PPF_TRAILER_MAGIC || get_le32(t + 8) != ppf_crc32c(0, t, 8))
		return;
	if (get_le64(t) < PPF_FILE_HDR_SZ || get_le64(t) >= (uint64_t)st.st_size)
		return;
	load_index(r, get_le64(t), (uint64_t)st.st_size);
}

static int reader_init(int fd, bool own, unsigned flags, struct ppf_reader **out)
{
	struct ppf_reader *r = calloc(1, sizeof(*r));
	struct stat st;
	int rc;

	*out = r;
	if (!r) {
		if (own)
			close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	r->own_fd = own;
	r->flags = flags;
	r->stats.problems = r->problems;
	r->ibuf = malloc(IBUF_SZ);
	r->dctx = ZSTD_createDCtx();
	if (!r->ibuf || !r->dctx) {
		set_msg(r, "out of memory");
		return -ENOMEM;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		set_msg(r, "is a directory, not a pp capture");
		return -EISDIR;
	}
	r->seekable = !(flags & PPF_READ_STREAM) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		      lseek(fd, 0, SEEK_CUR) == 0;
	size_t n = in_fill(r, PPF_FILE_HDR_SZ);
	rc = check_file_header(r, r->ibuf + r->ioff, n < PPF_FILE_HDR_SZ ? n : PPF_FILE_HDR_SZ);
	if (rc)
		return rc;
	in_skip(r, PPF_FILE_HDR_SZ);
	if (r->seekable)
		probe_trailer(r);
	return 0;
}

int ppf_reader_open(const char *path, unsigned flags, struct ppf_reader **out)
{
	int fd;

	if (!strcmp(path, "-"))
		return reader_init(0, false, flags | PPF_READ_STREAM, out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		*out = calloc(1, sizeof(**out));
		if (*out) {
			(*out)->fd = -1;
			set_msg(*out, "%s", strerror(-err));
		}
		return err;
	}
	return reader_init(fd, true, flags, out);
}

int ppf_reader_open_fd(int fd, unsigned flags, struct ppf_reader **out)
{
	return reader_init(fd, false, flags, out);
}

void ppf_reader_close(struct ppf_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ppf_ra_stop(r->ra);	/* joins: a job in flight finishes with our buffers */
	free(r->ibuf);
	ZSTD_freeDCtx(r->dctx);
	ppf_wbuf_release(&r->payload);
	ppf_wbuf_release(&r->raw);
	ppf_wbuf_release(&r->next_payload);
	ppf_wbuf_release(&r->next_raw);
	ppf_decoder_release(&r->dec);
	free(r->idx);
	free(r->dig_off);
	free(r->dig_grp);
	ppf_wbuf_release(&r->dig_c);
	ppf_wbuf_release(&r->dig_u);
	free(r);
}

const char *ppf_reader_errmsg(const struct ppf_reader *r)
{
	return r && r->errmsg[0] ? r->errmsg : "no error";
}

const struct ppf_file_info *ppf_reader_info(const struct ppf_reader *r)
{
	return &r->info;
}

const struct ppf_read_stats *ppf_reader_stats(const struct ppf_reader *r)
{
	return &r->stats;
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
			set_msg(r, "capture ends without a trailer after segment %llu",
				(unsigned long long)r->stats.last_seq);
			return PP_ETRUNCATED;
		}
		return PPF_END;
	}
	r->stats.truncated = true;
	r->stats.cut_mid_segment = true;
	r->stats.truncated_at = r->pos;
	problem(r, r->stats.nr_segments ? r->stats.last_seq + 1 : 0, r->pos, PP_ETRUNCATED, 0, 0);
	return (r->flags & PPF_READ_STRICT) ? PP_ETRUNCATED : PPF_END;
}

/* After a header that cannot be trusted: find the next offset holding a valid one. */
static void resync(struct ppf_reader *r)
{
	struct ppf_seg_hdr h;

	in_skip(r, 1);
	for (;;) {
		size_t avail = in_fill(r, PPF_SEG_HDR_SZ);
		if (avail < PPF_SEG_HDR_SZ)
			return;
		const uint8_t *p = r->ibuf + r->ioff;
		const uint8_t *m = memchr(p, 'P', avail - PPF_SEG_HDR_SZ + 1);
		if (!m) {
			in_skip(r, avail - PPF_SEG_HDR_SZ + 1);
			continue;
		}
		in_skip(r, (uint64_t)(m - p));
		if (in_fill(r, PPF_SEG_HDR_SZ) < PPF_SEG_HDR_SZ)
			return;
		if (ppf_seg_hdr_decode(r->ibuf + r->ioff, &h) == 0)
			return;
		in_skip(r, 1);
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
	if (in_fill(r, PPF_SEG_HDR_SZ) < PPF_SEG_HDR_SZ ||
	    ppf_seg_hdr_decode(r->ibuf + r->ioff, &h) || !(h.flags & PPF_SEGF_ZSTD) ||
	    (size_t)PPF_SEG_HDR_SZ + h.csize > IBUF_SZ ||
	    (r->seek_ns && h.kind == PPF_SEG_EVENTS && h.last_ns < r->seek_ns) ||
	    (r->records && h.kind == PPF_SEG_DIGEST && !(r->flags & PPF_READ_DIGESTS)) ||
	    (r->nr_dig && h.kind == PPF_SEG_EVENTS && r->pos < r->win_from))
		return;
	if (in_fill(r, PPF_SEG_HDR_SZ + h.csize) < PPF_SEG_HDR_SZ + h.csize)
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
	in_skip(r, PPF_SEG_HDR_SZ + h.csize);
	ppf_ra_submit(r->ra, r->next_payload.data, h.csize, r->next_raw.data, h.usize);
	r->ahead = true;
}

/* Wait for the segment read ahead and drop it (rewind). */
static void ahead_drop(struct ppf_reader *r)
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

int ppf_reader_next_segment(struct ppf_reader *r, const struct ppf_segment **out)
{
	struct ppf_seg_hdr h;
	int rc;

	r->in_seg = false;
	if (r->ahead) {
		/* the segment read ahead: what the loop below would have made of it */
		size_t got = ppf_ra_wait(r->ra);
		struct ppf_wbuf t = r->raw;

		r->ahead = false;
		r->raw = r->next_raw;	/* the segment before is done with: its buffer goes next */
		r->next_raw = t;
		h = r->next_hdr;
		if (r->seek_ns && h.kind == PPF_SEG_EVENTS && h.last_ns < r->seek_ns) {
			/* seeking began after it was read: skipped, as the loop would have */
		} else if (ZSTD_isError(got) || got != h.usize) {
			problem(r, h.seq, r->next_off, PP_EBAD_ZSTD, lost(&h), h.kind);
			if (r->flags & PPF_READ_STRICT)
				return PP_EBAD_ZSTD;
		} else {
			return segment_out(r, &h, r->next_off, r->raw.data, out);
		}
	}
	for (;;) {
		if (r->done)
			return PPF_END;
		if (r->win_to && r->pos >= r->win_to) {
			r->done = true;	/* the window's end: not a cut */
			return PPF_END;
		}
		if (r->seek_ns && r->nr_idx && r->seekable)
			index_skip(r);
		if (r->checks && r->seekable && r->pos < r->win_from) {
			int got = sparse_next(r, out);

			if (got == 1)
				return 0;
			if (got == 2)
				continue;
		}
		size_t avail = in_fill(r, PPF_SEG_HDR_SZ);
		if (avail < PPF_SEG_HDR_SZ)
			return end_of_data(r, avail);
		uint64_t off = r->pos;
		rc = ppf_seg_hdr_decode(r->ibuf + r->ioff, &h);
		if (rc) {
			problem(r, r->stats.nr_segments ? r->stats.last_seq + 1 : 0, off, rc, 0, 0);
			if (r->flags & PPF_READ_STRICT)
				return rc;
			resync(r);
			continue;
		}
		in_skip(r, PPF_SEG_HDR_SZ);
		/*
		 * Skimmed (before the window) and holding SAMPLEs only: nothing in it for the
		 * side band, and no time after it counts from its records - not even read.
		 */
		if ((r->seek_ns && h.kind == PPF_SEG_EVENTS && h.last_ns < r->seek_ns) ||
		    (h.kind == PPF_SEG_EVENTS && off < r->win_from && h.nr_records == h.nr_samples) ||
		    (off < r->pass_before && h.kind < 32 && (r->pass_kinds & (1u << h.kind)))) {
			if (in_skip(r, h.csize) < h.csize)
				return end_of_data(r, 1);
			continue;
		}
		r->payload.len = 0;
		if ((rc = ppf_wbuf_reserve(&r->payload, h.csize ? h.csize : 1)))
			return rc;
		if (in_read(r, r->payload.data, h.csize) < h.csize) {
			r->pos = off;	/* report the cut at the segment's start */
			r->stats.cut_mid_segment = true;
			r->stats.truncated = true;
			r->stats.truncated_at = off;
			r->done = true;
			problem(r, h.seq, off, PP_ETRUNCATED, h.nr_records, h.kind);
			return (r->flags & PPF_READ_STRICT) ? PP_ETRUNCATED : PPF_END;
		}
		if (ppf_crc32c(0, r->payload.data, h.csize) != h.payload_crc) {
			problem(r, h.seq, off, PP_EBAD_CRC, lost(&h), h.kind);
			if (r->flags & PPF_READ_STRICT)
				return PP_EBAD_CRC;
			continue;
		}
		if (r->checks)
			ppf_checks_pass(r->checks, off);
		/* a digest, to a reader of records: for parts (below), checked and passed over */
		if (h.kind == PPF_SEG_DIGEST && r->records && !(r->flags & PPF_READ_DIGESTS)) {
			r->stats.nr_digests++;
			r->stats.raw_bytes += h.usize;
			r->stats.comp_bytes += PPF_SEG_HDR_SZ + h.csize;
			continue;
		}
		const uint8_t *data = r->payload.data;
		if (h.kind == PPF_SEG_EVENTS && off < r->win_from) {
			/* before the window: its side band from a digest that agrees, else a skim */
			const struct ppf_digest_grp *g = r->nr_dig ? digest_find(r, off, &h) : NULL;

			if (g) {
				struct ppf_seg_hdr dh = h;

				dh.flags = 0;	/* the copies: dt in each body, from first_ns */
				dh.usize = (uint32_t)g->len;
				r->stats.digest_segments++;
				return segment_out(r, &dh, off, g->data, out);
			}
			r->stats.skim_segments++;
			r->stats.skim_raw_bytes += h.usize;
		}
		if (h.flags & PPF_SEGF_ZSTD) {
			r->raw.len = 0;
			if ((rc = ppf_wbuf_reserve(&r->raw, h.usize ? h.usize : 1)))
				return rc;
			unsigned long long fcs = ZSTD_getFrameContentSize(r->payload.data, h.csize);
			size_t got = fcs == h.usize ? ZSTD_decompressDCtx(r->dctx, r->raw.data, h.usize,
									  r->payload.data, h.csize)
						    : (size_t)-1;
			if (ZSTD_isError(got) || got != h.usize) {
				problem(r, h.seq, off, PP_EBAD_ZSTD, lost(&h), h.kind);
				if (r->flags & PPF_READ_STRICT)
					return PP_EBAD_ZSTD;
				continue;
			}
			data = r->raw.data;
		}
		return segment_out(r, &h, off, data, out);
	}
}

/*
 * ppf_reader_next() past its fast path: @rc is what ppf_decoder_next() gave
 * for the current segment, or PPF_NO_RC when it was not called.
 */
#define PPF_NO_RC INT32_MIN
static int __attribute__((noinline)) reader_next_slow(struct ppf_reader *r, struct ppf_record *rec,
						      const struct ppf_segment **seg, int rc)
{
	const struct ppf_segment *s;

	for (;; rc = PPF_NO_RC) {
		if (rc == PPF_NO_RC) {
			if (!r->in_seg) {
				r->records = true;
				rc = ppf_reader_next_segment(r, &s);
				if (rc)
					return rc;
				/* the index is the reader's own; unknown kinds are for newer readers */
				if (s->kind == PPF_SEG_INDEX || s->kind == 0 ||
				    (s->kind > PPF_SEG_INDEX && s->kind != PPF_SEG_DIGEST))
					continue;
				ppf_decoder_reset(&r->dec, s->data, s->usize, s->first_ns, s->flags);
				/* s->data is r->raw or r->payload: ours, rewritten by the next segment */
				r->dec.xor_in_place = true;
				r->dec.skim = s->kind == PPF_SEG_EVENTS && s->offset < r->win_from;
				r->dec.digest = s->kind == PPF_SEG_DIGEST;	/* PPF_READ_DIGESTS */
				r->in_seg = true;
			}
			rc = ppf_decoder_next(&r->dec, rec);
		}
		if (rc == 0) {
			if (rec->type == PPF_REC_STACK)
				continue;
			if (seg)
				*seg = &r->seg;
			return 0;
		}
		r->in_seg = false;
		if (rc == PPF_END)
			continue;
		if (rc == -ENOMEM)
			return rc;
		problem(r, r->seg.seq, r->seg.offset, rc == PP_ELIMIT ? PP_ELIMIT : PP_EBAD_RECORD, 0,
			r->seg.kind);
		if (r->flags & PPF_READ_STRICT)
			return rc;
	}
}

int ppf_reader_next(struct ppf_reader *r, struct ppf_record *rec, const struct ppf_segment **seg)
{
	/* the hot path: the next record of the current segment, and not a STACK */
	if (__builtin_expect(r->in_seg, 1)) {
		int rc = ppf_decoder_next(&r->dec, rec);
		if (__builtin_expect(rc == 0 && rec->type != PPF_REC_STACK, 1)) {
			if (seg)
				*seg = &r->seg;
			return 0;
		}
		return reader_next_slow(r, rec, seg, rc);
	}
	return reader_next_slow(r, rec, seg, PPF_NO_RC);
}

int ppf_reader_rewind(struct ppf_reader *r)
{
	if (!r->seekable)
		return -ESPIPE;
	if (lseek(r->fd, PPF_FILE_HDR_SZ, SEEK_SET) < 0)
		return -errno;
	ahead_drop(r);
	r->pos = PPF_FILE_HDR_SZ;
	r->ioff = r->ilen = 0;
	r->eof = r->done = r->in_seg = r->clean_end = false;
	memset(&r->stats, 0, sizeof(r->stats));
	r->stats.problems = r->problems;
	return 0;
}

int ppf_reader_seek_time(struct ppf_reader *r, uint64_t t_ns)
{
	r->seek_ns = t_ns;
	return 0;
}

int ppf_reader_set_window(struct ppf_reader *r, uint64_t from, uint64_t to)
{
	if (!r->seekable)
		return -ESPIPE;
	if (to && to < from)
		return -EINVAL;
	r->win_from = from;
	r->win_to = to;
	return 0;
}

static int off_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ppf_reader_set_digests(struct ppf_reader *r, const struct ppf_index_entry *segs, size_t nr)
{
	size_t n = 0;

	free(r->dig_off);
	r->dig_off = NULL;
	r->nr_dig = 0;
	for (size_t i = 0; i < nr; i++)
		n += segs[i].kind == PPF_SEG_DIGEST;
	if (!n)
		return 0;
	r->dig_off = malloc(n * sizeof(*r->dig_off));
	if (!r->dig_off)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		if (segs[i].kind == PPF_SEG_DIGEST)
			r->dig_off[r->nr_dig++] = segs[i].offset;
	qsort(r->dig_off, r->nr_dig, sizeof(*r->dig_off), off_cmp);
	return 0;
}

void ppf_reader_share_checks(struct ppf_reader *r, struct ppf_checks *c)
{
	r->checks = c;
}

void ppf_reader_pass_over(struct ppf_reader *r, unsigned kinds, uint64_t before)
{
	r->pass_kinds = kinds;
	r->pass_before = before;
}

/* Append one entry to *@v. Return: 0 or -ENOMEM. */
static int list_add(struct ppf_index_entry **v, size_t *nr, size_t *cap,
		    const struct ppf_seg_hdr *h, uint64_t off)
{
	if (*nr == *cap) {
		size_t n = *cap ? 2 * *cap : 256;
		struct ppf_index_entry *p = realloc(*v, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = n;
	}
	(*v)[(*nr)++] = (struct ppf_index_entry){ off, h->kind, h->seq, h->first_ns, h->last_ns,
						  h->nr_records };
	return 0;
}

int ppf_reader_segments(struct ppf_reader *r, struct ppf_index_entry **out, size_t *nr_out)
{
	struct ppf_index_entry *v = NULL;
	size_t nr = 0, cap = 0;
	struct stat st;
	uint8_t *buf;
	uint64_t off = PPF_FILE_HDR_SZ;
	int rc = 0;

	*out = NULL;
	*nr_out = 0;
	if (!r->seekable || fstat(r->fd, &st))
		return -ESPIPE;
	if (r->info.has_index) {
		for (size_t i = 0; i < r->nr_idx; i++)
			if (r->idx[i].kind != PPF_SEG_INDEX) {
				struct ppf_seg_hdr h = { .kind = r->idx[i].kind, .seq = r->idx[i].seq,
							 .first_ns = r->idx[i].first_ns,
							 .last_ns = r->idx[i].last_ns,
							 .nr_records = r->idx[i].nr_records };
				if ((rc = list_add(&v, &nr, &cap, &h, r->idx[i].offset)))
					break;
			}
		if (!rc) {
			*out = v;
			*nr_out = nr;
			return 0;
		}
		free(v);
		return rc;
	}
	/*
	 * No index (a cut or killed recording): the headers, as the reader meets
	 * them - a header that fails its checks is stepped over a byte at a time
	 * (resync()), a segment that does not fit in the file ends the list.
	 */
	buf = malloc(IBUF_SZ);
	if (!buf)
		return -ENOMEM;
	while (off + PPF_SEG_HDR_SZ <= (uint64_t)st.st_size) {
		size_t want = (uint64_t)st.st_size - off < IBUF_SZ ? (size_t)(st.st_size - off) : IBUF_SZ;
		ssize_t got = pread(r->fd, buf, want, (off_t)off);
		struct ppf_seg_hdr h;
		size_t i = 0;

		if (got < PPF_SEG_HDR_SZ)
			break;
		while (i + PPF_SEG_HDR_SZ <= (size_t)got && ppf_seg_hdr_decode(buf + i, &h))
			i++;
		if (i + PPF_SEG_HDR_SZ > (size_t)got) {
			off += i;	/* no header in this block: on from where one may start */
			continue;
		}
		off += i;
		if (off + PPF_SEG_HDR_SZ + h.csize > (uint64_t)st.st_size)
			break;
		if (h.kind != PPF_SEG_INDEX && (rc = list_add(&v, &nr, &cap, &h, off)))
			break;
		off += PPF_SEG_HDR_SZ + h.csize;
	}
	free(buf);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nr_out = nr;
	return 0;
}
