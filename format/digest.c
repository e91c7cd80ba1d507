/* SPDX-License-Identifier: MIT */
/*
 * digest.c - side-band digests: DIGEST segments (kind 7) and their entries.
 *
 * A digest holds, for each EVENTS segment it covers, a DIGEST_SEG record that
 * names the segment by its header (csize, payload crc, times, record counts),
 * then copies of the segment's side-band records - every record but SAMPLE and
 * STACK, what a skim of it hands out - with their times.  A part of a parallel
 * replay reads it instead of decompressing the segment (reader-segment.c).
 * The writer half builds groups as records are written (writer.c); the
 * reader half checks a whole digest before any of it is used: one malformed
 * record, a count that does not add up or a time outside its segment's, and
 * the digest is ignored.
 * Not here: where digests go in the file (writer.c), which digest a segment's
 * entry is looked for in (reader-segment.c).  docs/capture-format.md "Side-band digests".
 */
#include <stdarg.h>
#include <stdio.h>

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
	wb_varint(&d->grp, pp_wire_varint_len(dt) + len);
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

/* @a's field @f against @b's, as a comparison returns it (when they differ). */
#define CMP_FIELD(a, b, f)                                   \
	do {                                                 \
		if ((a)->f != (b)->f)                        \
			return (a)->f < (b)->f ? -1 : 1;     \
	} while (0)

int ppf_digest_entry_cmp(const struct ppf_digest_entry *a, const struct ppf_digest_entry *b)
{
	CMP_FIELD(a, b, payload_crc);	/* the most telling first */
	CMP_FIELD(a, b, csize);
	CMP_FIELD(a, b, first_ns);
	CMP_FIELD(a, b, last_ns);
	CMP_FIELD(a, b, nr_records);
	CMP_FIELD(a, b, nr_samples);
	return 0;
}

/* Order of ppf_digest_find()'s binary search. */
static int grp_cmp(const void *a, const void *b)
{
	return ppf_digest_entry_cmp(&((const struct ppf_digest_grp *)a)->e,
				    &((const struct ppf_digest_grp *)b)->e);
}

/* Why a digest is not to be used, into @why when there is one. Return: PP_EBAD_RECORD. */
static int refuse(char *why, size_t whysz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	if (why && whysz) {
		va_start(ap, fmt);
		vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return PP_EBAD_RECORD;
}

/* The entry's own fields, as a part checks them before it believes its copies. */
static int entry_check(const struct ppf_digest_entry *e, size_t i, char *why, size_t whysz)
{
	uint64_t sum = (uint64_t)e->nr_samples + e->nr_stacks + e->nr_copied;

	if (e->csize > PPF_SEG_MAX_COMP)
		return refuse(why, whysz, "entry %zu: csize %u is over the limit of a segment (%u)",
			      i, e->csize, (unsigned)PPF_SEG_MAX_COMP);
	if (sum != e->nr_records)
		return refuse(why, whysz, "entry %zu: nr_samples %u + nr_stacks %u + nr_copied %u "
			      "is not nr_records %u", i, e->nr_samples, e->nr_stacks, e->nr_copied,
			      e->nr_records);
	if (e->nr_records == e->nr_samples)
		return refuse(why, whysz, "entry %zu: a segment of samples only (%u records) has "
			      "no entry", i, e->nr_records);
	return 0;
}

/*
 * Walk a digest's payload as the decoder reads it (each DIGEST_SEG restarts the
 * times and COUNTER bases, dec.digest) and check it whole; the entries go into
 * *@out in file order.  The first check that fails is said in @why.
 */
static int digest_walk(const uint8_t *data, size_t len, struct ppf_digest_grp **out,
		       size_t *nr_out, char *why, size_t whysz)
{
	struct ppf_digest_grp *v = NULL, *g = NULL;
	struct ppf_decoder dec = { 0 };
	struct ppf_record rec;
	size_t nr = 0, cap = 0;
	uint32_t copies = 0;	/* of the entry g, so far */
	int rc;

	*out = NULL;
	*nr_out = 0;
	ppf_decoder_reset(&dec, data, len, 0, 0);
	dec.digest = true;
	for (;;) {
		const uint8_t *at = dec.in.p;

		rc = ppf_decoder_next(&dec, &rec);
		if (rc == -ENOMEM)
			goto out;
		if (rc != 0 && rc != PPF_END) {
			rc = refuse(why, whysz, "%s at byte %zu (entry %zu): %s", g ? "a copy" : "a record",
				    (size_t)(at - data), nr, pp_strerror(rc));
			goto out;
		}
		if (rc == PPF_END || rec.type == PPF_REC_DIGEST_SEG) {
			if (g) {	/* the entry before ends here */
				g->len = (size_t)(at - g->data);
				if (copies != g->e.nr_copied) {
					rc = refuse(why, whysz, "entry %zu: %u copies follow it, "
						    "nr_copied says %u", nr, copies, g->e.nr_copied);
					goto out;
				}
			}
			if (rc == PPF_END)
				break;
			if (nr == PPF_DIGEST_MAX_SEGS) {
				rc = refuse(why, whysz, "more than %d entries", PPF_DIGEST_MAX_SEGS);
				goto out;
			}
			if ((rc = entry_check(&rec.u.digest, nr + 1, why, whysz)))
				goto out;
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
			g = &v[nr++];
			*g = (struct ppf_digest_grp){ .e = rec.u.digest, .data = dec.in.p, .len = 0 };
			copies = 0;
			continue;
		}
		/* a copy: what a skim of its segment could hand out */
		if (!g) {
			rc = refuse(why, whysz, "a record of type 0x%02x before any entry", rec.type);
			goto out;
		}
		if (rec.type == PPF_REC_SAMPLE || rec.type == PPF_REC_STACK) {
			rc = refuse(why, whysz, "entry %zu: copy %u is a %s, not side band", nr,
				    copies + 1, rec.type == PPF_REC_SAMPLE ? "SAMPLE" : "STACK");
			goto out;
		}
		if (rec.type >= PPF_REC_TIMED_FIRST && rec.type <= PPF_REC_TIMED_LAST &&
		    (rec.time_ns < g->e.first_ns || rec.time_ns > g->e.last_ns)) {
			rc = refuse(why, whysz, "entry %zu: copy %u at %llu is outside the "
				    "segment's %llu..%llu", nr, copies + 1,
				    (unsigned long long)rec.time_ns, (unsigned long long)g->e.first_ns,
				    (unsigned long long)g->e.last_ns);
			goto out;
		}
		copies++;
	}
	*out = v;
	*nr_out = nr;
	v = NULL;
	rc = 0;
out:
	ppf_decoder_release(&dec);
	free(v);
	return rc;
}

int ppf_digest_parse(const uint8_t *data, size_t len, struct ppf_digest_grp **out, size_t *nr_out)
{
	int rc = digest_walk(data, len, out, nr_out, NULL, 0);

	if (!rc && *nr_out)	/* an empty digest: NULL, which qsort() may not be given */
		qsort(*out, *nr_out, sizeof(**out), grp_cmp);
	return rc;
}

int ppf_digest_check(const uint8_t *data, size_t size, char *why, size_t whysz)
{
	struct ppf_digest_grp *v;
	size_t nr;
	int rc = digest_walk(data, size, &v, &nr, why, whysz);

	free(v);
	return rc;
}

const struct ppf_digest_grp *ppf_digest_find(const struct ppf_digest_grp *v, size_t nr,
					     const struct ppf_seg_hdr *h)
{
	struct ppf_digest_grp key = { .e = {
		.csize = h->csize, .payload_crc = h->payload_crc, .first_ns = h->first_ns,
		.last_ns = h->last_ns, .nr_records = h->nr_records, .nr_samples = h->nr_samples,
	} };

	return nr ? bsearch(&key, v, nr, sizeof(*v), grp_cmp) : NULL;	/* v may be NULL */
}
