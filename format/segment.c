/* SPDX-License-Identifier: MIT */
/*
 * segment.c - file and segment header codecs, and the bounded output buffer.
 *
 * Layouts are the byte tables of docs/capture-format.md ("File header",
 * "Segment header").  A segment header carries its own CRC so that a reader
 * can trust its lengths before it reads the payload, and can resynchronise
 * on the next valid header after damage.
 */
#include "format/internal.h"

int ppf_wbuf_reserve(struct ppf_wbuf *b, size_t extra)
{
	size_t need = b->len + extra;

	if (need <= b->cap)
		return 0;
	size_t n = b->cap ? b->cap : 4096;
	while (n < need)
		n *= 2;
	uint8_t *p = realloc(b->data, n);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = n;
	return 0;
}

void ppf_wbuf_release(struct ppf_wbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void ppf_file_hdr_encode(uint64_t created_ns, uint8_t out[PPF_FILE_HDR_SZ])
{
	memset(out, 0, PPF_FILE_HDR_SZ);
	memcpy(out, PPF_FILE_MAGIC, 8);
	put_le16(out + 8, PPF_VERSION_MAJOR);
	put_le16(out + 10, PPF_VERSION_MINOR);
	put_le16(out + 12, PPF_FILE_HDR_SZ);
	put_le32(out + 16, PPF_ENDIAN_TAG);
	put_le32(out + 20, 0);
	put_le64(out + 24, PPF_FEAT_CPU_TIME | PPF_FEAT_DELTA_ADDR | PPF_FEAT_XOR_CPU |
			   PPF_FEAT_TIME_COL | PPF_FEAT_USTACK_RUNS);	/* required */
	put_le64(out + 32, 0);	/* optional features */
	put_le64(out + 40, created_ns);
	put_le32(out + 60, ppf_crc32c(0, out, 60));
}

void ppf_seg_hdr_encode(const struct ppf_seg_hdr *h, uint8_t out[PPF_SEG_HDR_SZ])
{
	memset(out, 0, PPF_SEG_HDR_SZ);
	put_le32(out + 0, PPF_SEG_MAGIC);
	put_le16(out + 4, (uint16_t)h->kind);
	put_le16(out + 6, (uint16_t)h->flags);
	put_le64(out + 8, h->seq);
	put_le64(out + 16, h->first_ns);
	put_le64(out + 24, h->last_ns);
	put_le32(out + 32, h->csize);
	put_le32(out + 36, h->usize);
	put_le32(out + 40, h->nr_records);
	put_le32(out + 44, h->nr_samples);
	put_le32(out + 48, h->payload_crc);
	put_le16(out + 52, PPF_SEG_HDR_SZ);
	put_le32(out + 60, ppf_crc32c(0, out, 60));
}

int ppf_seg_hdr_decode(const uint8_t in[PPF_SEG_HDR_SZ], struct ppf_seg_hdr *h)
{
	if (get_le32(in) != PPF_SEG_MAGIC)
		return PP_EBAD_MAGIC;
	if (get_le32(in + 60) != ppf_crc32c(0, in, 60))
		return PP_EBAD_CRC;
	h->kind = get_le16(in + 4);
	h->flags = get_le16(in + 6);
	h->seq = get_le64(in + 8);
	h->first_ns = get_le64(in + 16);
	h->last_ns = get_le64(in + 24);
	h->csize = get_le32(in + 32);
	h->usize = get_le32(in + 36);
	h->nr_records = get_le32(in + 40);
	h->nr_samples = get_le32(in + 44);
	h->payload_crc = get_le32(in + 48);
	if (get_le16(in + 52) != PPF_SEG_HDR_SZ || h->last_ns < h->first_ns ||
	    (!(h->flags & PPF_SEGF_ZSTD) && h->csize != h->usize))
		return PP_EBAD_LENGTH;
	if (h->usize > PPF_SEG_MAX_RAW || h->csize > PPF_SEG_MAX_COMP)
		return PP_ELIMIT;	/* a segment "of 4 GB": refused before anything is allocated */
	return 0;
}

const char *ppf_kind_name(uint32_t kind)
{
	switch (kind) {
	case PPF_SEG_META: return "meta";
	case PPF_SEG_EVENTS: return "events";
	case PPF_SEG_KSYMS: return "ksyms";
	case PPF_SEG_USYMS: return "usyms";
	case PPF_SEG_STATS: return "stats";
	case PPF_SEG_INDEX: return "index";
	case PPF_SEG_DIGEST: return "digest";
	default: return "unknown";
	}
}
