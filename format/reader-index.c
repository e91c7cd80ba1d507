/* SPDX-License-Identifier: MIT */
/*
 * reader-index.c - the trailer, the index it points to, and the list of a
 * file's segments.
 *
 * The trailer and index are hints: a damaged or absent one only means
 * "no index" (has_index false); they serve seeking by time and
 * ppf_reader_segments().  Without them, the segment list comes from the
 * headers as the reader meets them, stepping over damage a byte at a time.
 * Not here: reading segments in order (reader-segment.c).
 */
#include <sys/stat.h>
#include <unistd.h>

#include "format/reader-internal.h"

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
void ppf_reader_index_skip(struct ppf_reader *r)
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
		ppf_reader_in_skip(r, r->idx[i].offset - r->pos);
	}
}

/* The trailer is a hint: a damaged or absent one only means "no index". */
void ppf_reader_probe_trailer(struct ppf_reader *r)
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
	buf = malloc(PPF_IBUF_SZ);
	if (!buf)
		return -ENOMEM;
	while (off + PPF_SEG_HDR_SZ <= (uint64_t)st.st_size) {
		size_t want = (uint64_t)st.st_size - off < PPF_IBUF_SZ ? (size_t)(st.st_size - off) : PPF_IBUF_SZ;
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
