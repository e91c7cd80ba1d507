/* SPDX-License-Identifier: MIT */
/*
 * reader.c - reading a capture: opening it, and records from its segments.
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
 *
 * The parts: reader-segment.c reads the segments (the input buffer, the damage
 * above, read-ahead, digests), reader-index.c the trailer and index; here, the
 * file header, the records (ppf_reader_next()) and the reader's settings.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "format/reader-internal.h"
#include "format/segq.h"

void ppf_reader_set_msg(struct ppf_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
}

static int check_file_header(struct ppf_reader *r, const uint8_t *h, size_t n)
{
	if (n == 0) {
		ppf_reader_set_msg(r, "empty file, not a pp capture");
		return PP_EBAD_MAGIC;
	}
	if (n < 8 || memcmp(h, PPF_FILE_MAGIC, 8)) {
		ppf_reader_set_msg(r, "not a pp capture (bad magic)");
		return PP_EBAD_MAGIC;
	}
	if (n < PPF_FILE_HDR_SZ) {
		ppf_reader_set_msg(r, "capture header is cut off after %zu bytes", n);
		return PP_ETRUNCATED;
	}
	if (get_le32(h + 60) != ppf_crc32c(0, h, 60)) {
		ppf_reader_set_msg(r, "capture header is damaged (checksum mismatch)");
		return PP_EBAD_CRC;
	}
	if (get_le32(h + 16) != PPF_ENDIAN_TAG) {
		ppf_reader_set_msg(r, "capture header has a bad byte-order tag");
		return PP_EBAD_MAGIC;
	}
	r->info.major = get_le16(h + 8);
	r->info.minor = get_le16(h + 10);
	r->info.flags = get_le32(h + 20);
	r->info.required_features = get_le64(h + 24);
	r->info.optional_features = get_le64(h + 32);
	r->info.created_ns = get_le64(h + 40);
	if (r->info.major > PPF_VERSION_MAJOR) {
		ppf_reader_set_msg(r, "capture format %u.%u is newer than this reader's %u.%u: use a newer pp",
			r->info.major, r->info.minor, PPF_VERSION_MAJOR, PPF_VERSION_MINOR);
		return PP_EVERSION;
	}
	if (r->info.required_features & ~PPF_FEAT_REQUIRED_KNOWN) {
		ppf_reader_set_msg(r, "capture needs features 0x%llx that this reader lacks: use a newer pp",
			(unsigned long long)(r->info.required_features & ~PPF_FEAT_REQUIRED_KNOWN));
		return PP_EFEATURE;
	}
	if (get_le16(h + 12) != PPF_FILE_HDR_SZ) {
		ppf_reader_set_msg(r, "capture header has an unknown size");
		return PP_EBAD_LENGTH;
	}
	return 0;
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
	r->ibuf = malloc(PPF_IBUF_SZ);
	r->dctx = ZSTD_createDCtx();
	if (!r->ibuf || !r->dctx) {
		ppf_reader_set_msg(r, "out of memory");
		return -ENOMEM;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ppf_reader_set_msg(r, "is a directory, not a pp capture");
		return -EISDIR;
	}
	r->seekable = !(flags & PPF_READ_STREAM) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		      lseek(fd, 0, SEEK_CUR) == 0;
	size_t n = ppf_reader_in_fill(r, PPF_FILE_HDR_SZ);
	rc = check_file_header(r, r->ibuf + r->ioff, n < PPF_FILE_HDR_SZ ? n : PPF_FILE_HDR_SZ);
	if (rc)
		return rc;
	ppf_reader_in_skip(r, PPF_FILE_HDR_SZ);
	if (r->seekable)
		ppf_reader_probe_trailer(r);
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
			ppf_reader_set_msg(*out, "%s", strerror(-err));
		}
		return err;
	}
	return reader_init(fd, true, flags, out);
}

int ppf_reader_open_fd(int fd, unsigned flags, struct ppf_reader **out)
{
	return reader_init(fd, false, flags, out);
}

int ppf_reader_open_segq(struct ppf_segq *q, unsigned flags, struct ppf_reader **out)
{
	struct ppf_reader *r = calloc(1, sizeof(*r));
	struct ppf_segq_item *it;
	int rc;

	*out = r;
	if (!r) {
		ppf_segq_abandon(q);
		ppf_segq_unref(q);
		return -ENOMEM;
	}
	r->fd = -1;
	r->q = q;
	r->flags = (flags | PPF_READ_STREAM) & ~(unsigned)PPF_READ_AHEAD;
	r->stats.problems = r->problems;
	r->dctx = ZSTD_createDCtx();	/* for a segment some other writer compressed */
	if (!r->dctx) {
		ppf_reader_set_msg(r, "out of memory");
		return -ENOMEM;
	}
	rc = ppf_segq_pop(q, &it, r->errmsg, sizeof(r->errmsg));
	if (rc == PPF_END) {
		ppf_reader_set_msg(r, "empty file, not a pp capture");
		return PP_EBAD_MAGIC;
	}
	if (rc)
		return rc;
	rc = check_file_header(r, it->head, it->what == PPF_CHUNK_FILE_HDR ? it->head_sz : 0);
	ppf_segq_release(q);
	r->pos = PPF_FILE_HDR_SZ;
	return rc;
}

void ppf_reader_close(struct ppf_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->q) {
		if (r->q_held)
			ppf_segq_release(r->q);
		ppf_segq_abandon(r->q);	/* its writer's segments are dropped from now */
		ppf_segq_unref(r->q);
	}
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
		ppf_reader_problem(r, r->seg.seq, r->seg.offset, rc == PP_ELIMIT ? PP_ELIMIT : PP_EBAD_RECORD, 0,
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
	ppf_reader_ahead_drop(r);
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
