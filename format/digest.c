/* SPDX-License-Identifier: MIT */
/*
 * digest.c - side-band digests: DIGEST segments (kind 7) and their entries.
 *
 * A digest holds, for each EVENTS segment it covers, a DIGEST_SEG record that
 * names the segment by its header (csize, payload crc, times, record counts),
 * then copies of the segment's side-band records - every record but SAMPLE and
 * STACK, what a skim of it hands out - with their times.  A part of a parallel
 * replay reads it instead of decompressing the segment (reader.c).  The writer
 * half builds groups as records are written (writer.c); the reader half checks
 * a whole digest before any of it is used: one malformed record, a count that
 * does not add up or a time outside its segment's, and the digest is ignored.
 * Not here: where digests go in the file (writer.c), which digest a segment's
 * entry is looked for in (reader.c).  docs/capture-format.md "Side-band digests".
 */
#include "format/internal.h"

int ppf_digest_copy(struct ppf_digest_w *d, uint8_t type, uint64_t t_ns, uint64_t seg_first_ns,
		    const uint8_t *body, size_t len)
{
	uint64_t base = d->grp_nr ? d->grp_last_ns : seg_first_ns;
	uint64_t dt = t_ns >= base ? t_ns - base : 0;
	int rc = ppf_wbuf_reserve(&d->grp, 1 + 2 * PPF_VARINT_MAX + len);

	if (rc)
		return rc;
	wb_u8(&d->grp, type);
	wb_varint(&d->grp, ppf_varint_len(dt) + len);
	wb_varint(&d->grp, dt);
	wb_bytes(&d->grp, body, len);
	d->grp_nr++;
	d->grp_last_ns = base + dt;
	return 0;
}

int ppf_digest_seg_end(struct ppf_digest_w *d, const struct ppf_seg_hdr *h, uint32_t nr_stacks)
{
	uint8_t b[8 * PPF_VARINT_MAX];
	struct ppf_wbuf e = { b, 0, sizeof(b) };
	int rc = 0;

	/* SAMPLEs only: a skim does not even read it */
	if (h->nr_records == h->nr_samples)
		goto out;
	wb_varint(&e, h->csize);
	wb_varint(&e, h->payload_crc);
	wb_varint(&e, h->first_ns);
	wb_varint(&e, h->last_ns - h->first_ns);
	wb_varint(&e, h->nr_records);
	wb_varint(&e, h->nr_samples);
	wb_varint(&e, nr_stacks);
	wb_varint(&e, d->grp_nr);
	rc = ppf_wbuf_reserve(&d->out, 1 + PPF_VARINT_MAX + e.len + d->grp.len);
	if (rc)
		goto out;
	wb_u8(&d->out, PPF_REC_DIGEST_SEG);
	wb_varint(&d->out, e.len);
	wb_bytes(&d->out, e.data, e.len);
	wb_bytes(&d->out, d->grp.data, d->grp.len);
	if (!d->nr_segs)
		d->first_ns = h->first_ns;
	d->last_ns = h->last_ns;
	d->nr_segs++;
	d->nr_records += 1 + d->grp_nr;
out:
	d->grp.len = 0;
	d->grp_nr = 0;
	return rc;
}

void ppf_digest_clear(struct ppf_digest_w *d)
{
	d->out.len = 0;
	d->nr_segs = d->nr_records = 0;
	d->first_ns = d->last_ns = 0;
}

void ppf_digest_w_release(struct ppf_digest_w *d)
{
	ppf_wbuf_release(&d->grp);
	ppf_wbuf_release(&d->out);
}

/* --- reading ---------------------------------------------------------------- */

/* Order of ppf_digest_find()'s binary search. */
static int grp_cmp(const void *a, const void *b)
{
	const struct ppf_digest_grp *x = a, *y = b;

	if (x->crc != y->crc)
		return x->crc < y->crc ? -1 : 1;
	if (x->csize != y->csize)
		return x->csize < y->csize ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return 0;
}

/* A group's copies, decoded as a reader would: what a skim of its segment could hand out. */
static int grp_check(const struct ppf_digest_grp *g, struct ppf_decoder *dec)
{
	struct ppf_record rec;
	uint64_t n = 0;
	int rc;

	ppf_decoder_reset(dec, g->data, g->len, g->first_ns, 0);
	while ((rc = ppf_decoder_next(dec, &rec)) == 0) {
		if (rec.type == PPF_REC_SAMPLE || rec.type == PPF_REC_STACK ||
		    rec.type == PPF_REC_DIGEST_SEG)
			return PP_EBAD_RECORD;
		if (rec.type >= PPF_REC_TIMED_FIRST && rec.type <= PPF_REC_TIMED_LAST &&
		    (rec.time_ns < g->first_ns || rec.time_ns > g->last_ns))
			return PP_EBAD_RECORD;
		n++;
	}
	if (rc != PPF_END)
		return rc;
	return n == g->nr_copied ? 0 : PP_EBAD_RECORD;
}

int ppf_digest_parse(const uint8_t *data, size_t len, struct ppf_digest_grp **out, size_t *nr_out)
{
	struct ppf_rbuf in = { data, data + len, false, false };
	struct ppf_digest_grp *v = NULL, *g = NULL;
	struct ppf_decoder dec = { 0 };
	size_t nr = 0, cap = 0;
	int rc = 0;

	*out = NULL;
	*nr_out = 0;
	while (in.p < in.end) {
		uint8_t type = rb_u8(&in);
		uint64_t n = rb_varint(&in);
		const uint8_t *body = in.bad || n > (uint64_t)(in.end - in.p) ? NULL : rb_bytes(&in, n);

		if (!body)
			goto bad;
		if (type != PPF_REC_DIGEST_SEG) {
			if (!g)
				goto bad;	/* a copy before any entry */
			g->len = (size_t)(body + n - g->data);
			continue;
		}
		if (nr == PPF_DIGEST_MAX_SEGS)
			goto bad;
		if (nr == cap) {
			size_t c = cap ? 2 * cap : 16;
			struct ppf_digest_grp *p = realloc(v, c * sizeof(*p));

			if (!p) {
				rc = -ENOMEM;
				goto out;
			}
			v = p;
			cap = c;
		}
		struct ppf_rbuf e = { body, body + n, false, false };
		uint64_t csize = rb_varint(&e), crc = rb_varint(&e), first = rb_varint(&e);
		uint64_t span = rb_varint(&e), nrec = rb_varint(&e), nsamp = rb_varint(&e);
		uint64_t nstk = rb_varint(&e), ncopy = rb_varint(&e);

		/* trailing fields of a newer minor version are allowed, as in any record */
		if (e.bad || csize > PPF_SEG_MAX_COMP || crc > UINT32_MAX || span > UINT64_MAX - first ||
		    nrec > UINT32_MAX || nsamp > UINT32_MAX || nstk > UINT32_MAX || ncopy > UINT32_MAX ||
		    nsamp + nstk + ncopy != nrec || nrec == nsamp)
			goto bad;
		g = &v[nr++];
		*g = (struct ppf_digest_grp){
			.first_ns = first, .last_ns = first + span, .csize = (uint32_t)csize,
			.crc = (uint32_t)crc, .nr_records = (uint32_t)nrec,
			.nr_samples = (uint32_t)nsamp, .nr_copied = (uint32_t)ncopy,
			.data = in.p, .len = 0,
		};
	}
	for (size_t i = 0; i < nr; i++)
		if ((rc = grp_check(&v[i], &dec)) != 0)
			goto bad;
	if (nr)		/* an empty digest: v is NULL, which qsort() may not be given */
		qsort(v, nr, sizeof(*v), grp_cmp);
	*out = v;
	*nr_out = nr;
	v = NULL;
	goto out;
bad:
	rc = rc == -ENOMEM ? rc : PP_EBAD_RECORD;
out:
	ppf_decoder_release(&dec);
	free(v);
	return rc;
}

const struct ppf_digest_grp *ppf_digest_find(const struct ppf_digest_grp *v, size_t nr,
					     const struct ppf_seg_hdr *h)
{
	struct ppf_digest_grp key = { .crc = h->payload_crc, .csize = h->csize,
				      .first_ns = h->first_ns };
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (grp_cmp(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nr && grp_cmp(&v[lo], &key) == 0; lo++)
		if (v[lo].last_ns == h->last_ns && v[lo].nr_records == h->nr_records &&
		    v[lo].nr_samples == h->nr_samples)
			return &v[lo];
	return NULL;
}
