/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - the UNWIND record: a run of a DSO's unwind rows, delta-coded.
 *
 * Body: arch:varint, nr_rows:varint, then the rows until the end of the body.  A row is
 * one flags byte, then [gap:varint] len:varint [cfa_off] [ra_off] [fp_off]: its start is
 * the previous row's end (0 before the first) + gap, its end start + len (len >= 1), and
 * each offset present is zigzag(value - the previous row's value); an absent one repeats
 * it (before the first row: cfa_off 8, ra_off -8, fp_off -16, x86-64's call frame).
 * Flags: bits 0-1 the CFA kind, bit 2 the return address undefined (else at CFA +
 * ra_off), bit 3 the caller's FP saved at CFA + fp_off (else the same), bit 4 a gap
 * follows, bits 5-7 cfa_off, ra_off, fp_off follow.
 * The reader walks every record once (row_next) so that a record it returns is known
 * good: rows in order and not overlapping by construction, no address past 2^64, no
 * offset outside int32, exactly nr_rows rows filling the body.
 * Not here: deriving rows from an ELF file (format/cfi.c) or using them
 * (analyze/cfi.c).
 */
#include "format/writer-internal.h"

enum {
	UF_CFA_MASK = 3,
	UF_RA_UNDEF = 1 << 2,
	UF_FP_SAVED = 1 << 3,
	UF_GAP = 1 << 4,
	UF_CFA_OFF = 1 << 5,
	UF_RA_OFF = 1 << 6,
	UF_FP_OFF = 1 << 7,
};

static const struct ppf_unwind_row row_init = { .cfa_off = 8, .ra_off = -8, .fp_off = -16 };

static bool off_delta(struct ppf_rbuf *r, int32_t *v)
{
	int64_t n = (int64_t)*v + unzigzag(rb_varint(r));

	if (n < INT32_MIN || n > INT32_MAX)
		return false;
	*v = (int32_t)n;
	return true;
}

/* The row after @prev (row_init before the first) from @r; false when it is not a good one. */
static bool row_next(struct ppf_rbuf *r, const struct ppf_unwind_row *prev,
		     struct ppf_unwind_row *o)
{
	uint8_t f = rb_u8(r);
	uint64_t gap = f & UF_GAP ? rb_varint(r) : 0;
	uint64_t len = rb_varint(r);

	*o = *prev;
	o->cfa = f & UF_CFA_MASK;
	o->ra = f & UF_RA_UNDEF ? PPF_REG_UNDEF : PPF_REG_AT_CFA;
	o->fp = f & UF_FP_SAVED ? PPF_REG_AT_CFA : PPF_REG_SAME;
	if (r->bad || !len || gap > UINT64_MAX - prev->end || len > UINT64_MAX - prev->end - gap)
		return false;
	o->start = prev->end + gap;
	o->end = o->start + len;
	if ((f & UF_CFA_OFF) && !off_delta(r, &o->cfa_off))
		return false;
	if ((f & UF_RA_OFF) && !off_delta(r, &o->ra_off))
		return false;
	if ((f & UF_FP_OFF) && !off_delta(r, &o->fp_off))
		return false;
	return !r->bad;
}

int ppf_decode_unwind(struct ppf_rbuf *r, struct ppf_unwind *u)
{
	struct ppf_unwind_row prev = row_init, row;

	u->arch = rb_varint32(r);
	u->nr_rows = rb_varint32(r);
	if (r->bad || u->arch != PPF_UNWIND_X86_64 || !u->nr_rows ||
	    u->nr_rows > PPF_UNWIND_MAX_ROWS)
		return PP_EBAD_RECORD;
	u->rows = r->p;
	u->rows_sz = (uint32_t)(r->end - r->p);
	for (uint32_t i = 0; i < u->nr_rows; i++) {
		if (!row_next(r, &prev, &row))
			return PP_EBAD_RECORD;
		prev = row;
	}
	return r->p == r->end ? 0 : PP_EBAD_RECORD;
}

int ppf_unwind_rows(const struct ppf_unwind *u, struct ppf_unwind_row *out)
{
	struct ppf_rbuf r = { u->rows, u->rows + u->rows_sz, false, false };
	const struct ppf_unwind_row *prev = &row_init;

	for (uint32_t i = 0; i < u->nr_rows; i++) {
		if (!row_next(&r, prev, &out[i]))
			return PP_EBAD_RECORD;
		prev = &out[i];
	}
	return 0;
}

static bool row_ok(const struct ppf_unwind_row *x, uint64_t prev_end)
{
	return x->start < x->end && x->start >= prev_end && x->cfa <= PPF_CFA_PLT &&
	       (x->ra == PPF_REG_AT_CFA || x->ra == PPF_REG_UNDEF) &&
	       (x->fp == PPF_REG_SAME || x->fp == PPF_REG_AT_CFA);
}

int ppf_write_unwind(struct ppf_writer *w, uint32_t arch, const struct ppf_unwind_row *rows,
		     size_t nr)
{
	const struct ppf_unwind_row *prev = &row_init;
	int rc;

	if (arch != PPF_UNWIND_X86_64 || !nr || nr > PPF_UNWIND_MAX_ROWS)
		return ppf_writer_fail(w, PP_EBAD_RECORD, "unwind rows");
	rc = ppf_writer_rec_begin(w, PPF_SEG_USYMS, 2 * PPF_VARINT_MAX + nr * (1 + 5 * PPF_VARINT_MAX));
	if (rc)
		return rc;
	wb_varint(&w->body, arch);
	wb_varint(&w->body, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct ppf_unwind_row *x = &rows[i];
		uint8_t f = (uint8_t)x->cfa;

		if (!row_ok(x, prev->end))
			return ppf_writer_fail(w, PP_EBAD_RECORD, "unwind rows out of order");
		f |= (x->ra == PPF_REG_UNDEF ? UF_RA_UNDEF : 0) | (x->fp == PPF_REG_AT_CFA ? UF_FP_SAVED : 0);
		f |= (x->start != prev->end ? UF_GAP : 0) | (x->cfa_off != prev->cfa_off ? UF_CFA_OFF : 0);
		f |= (x->ra_off != prev->ra_off ? UF_RA_OFF : 0) | (x->fp_off != prev->fp_off ? UF_FP_OFF : 0);
		wb_u8(&w->body, f);
		if (f & UF_GAP)
			wb_varint(&w->body, x->start - prev->end);
		wb_varint(&w->body, x->end - x->start);
		if (f & UF_CFA_OFF)
			wb_varint(&w->body, zigzag((int64_t)x->cfa_off - prev->cfa_off));
		if (f & UF_RA_OFF)
			wb_varint(&w->body, zigzag((int64_t)x->ra_off - prev->ra_off));
		if (f & UF_FP_OFF)
			wb_varint(&w->body, zigzag((int64_t)x->fp_off - prev->fp_off));
		prev = x;
	}
	return ppf_writer_rec_end(w, PPF_REC_UNWIND);
}

int ppf_write_unwind_rec(struct ppf_writer *w, const struct ppf_unwind *u)
{
	struct ppf_unwind_row *rows = calloc(u->nr_rows ? u->nr_rows : 1, sizeof(*rows));
	int rc;

	if (!rows)
		return ppf_writer_fail(w, -ENOMEM, "unwind rows");
	rc = ppf_unwind_rows(u, rows);
	rc = rc ? ppf_writer_fail(w, rc, "unwind rows") : ppf_write_unwind(w, u->arch, rows, u->nr_rows);
	free(rows);
	return rc;
}
