/* SPDX-License-Identifier: MIT */
/*
 * wire.c - the binary encoding of wire.h: writers append, readers check.
 *
 * A reader never trusts a number before comparing it with what is left: a
 * count of N items of at least M bytes each needs N * M bytes, so a hostile
 * count fails before anything is allocated for it.  Histograms are written as
 * their non-empty buckets only (a 59 KiB histogram of one value is 8 bytes);
 * the reader rebuilds the per-group totals itself instead of trusting them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/wire.h"

void pp_wire_put_u8(struct pp_buf *b, uint8_t v)
{
	pp_buf_add(b, &v, 1);
}

void pp_wire_put_le32(struct pp_buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	pp_buf_add(b, x, 4);
}

void pp_wire_put_le64(struct pp_buf *b, uint64_t v)
{
	pp_wire_put_le32(b, (uint32_t)v);
	pp_wire_put_le32(b, (uint32_t)(v >> 32));
}

void pp_wire_put_varint(struct pp_buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = v & 0x7f;
		v >>= 7;
		if (v)
			x[n] |= 0x80;
		n++;
	} while (v);
	pp_buf_add(b, x, n);
}

void pp_wire_put_bytes(struct pp_buf *b, const void *p, size_t n)
{
	pp_wire_put_varint(b, n);
	if (n)
		pp_buf_add(b, p, n);
}

void pp_wire_put_str(struct pp_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	pp_wire_put_varint(b, n);
	if (n)
		pp_buf_add(b, s, n);
	pp_wire_put_u8(b, 0);
}

void pp_wire_put_hist(struct pp_buf *b, const struct pp_hist *h)
{
	uint64_t nr = 0, prev = 0;

	pp_wire_put_varint(b, h->count);
	if (!h->count)
		return;
	pp_wire_put_varint(b, h->min);
	pp_wire_put_varint(b, h->max);
	pp_wire_put_varint(b, (uint64_t)h->sum);
	pp_wire_put_varint(b, (uint64_t)(h->sum >> 64));
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++)
		for (unsigned i = 0; h->group_count[g] && i < PP_HIST_SUB; i++)
			nr += h->groups[g][i] != 0;
	pp_wire_put_varint(b, nr);
	/* each bucket: the gap from the bucket after the previous one, then its count */
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		for (unsigned i = 0; h->group_count[g] && i < PP_HIST_SUB; i++) {
			uint64_t idx = (uint64_t)g * PP_HIST_SUB + i;
			if (!h->groups[g][i])
				continue;
			pp_wire_put_varint(b, idx - prev);
			pp_wire_put_varint(b, h->groups[g][i]);
			prev = idx + 1;
		}
	}
}

void pp_wire_init(struct pp_wire *r, const void *data, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = data;
	r->end = r->p + len;
	r->hist_groups_left = PP_WIRE_HIST_GROUPS;
}

int pp_wire_fail(struct pp_wire *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->p = r->end;
	return err;
}

static bool need(struct pp_wire *r, size_t n, const char *what)
{
	if (r->err)
		return false;
	if ((size_t)(r->end - r->p) < n) {
		pp_wire_fail(r, PP_ETRUNCATED, "%s: %zu bytes needed, %zu left", what, n,
			     (size_t)(r->end - r->p));
		return false;
	}
	return true;
}

uint8_t pp_wire_u8(struct pp_wire *r)
{
	if (!need(r, 1, "a byte"))
		return 0;
	return *r->p++;
}

uint32_t pp_wire_le32(struct pp_wire *r)
{
	uint32_t v;

	if (!need(r, 4, "a 32-bit number"))
		return 0;
	v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
	    (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

uint64_t pp_wire_le64(struct pp_wire *r)
{
	uint64_t lo = pp_wire_le32(r);

	return lo | (uint64_t)pp_wire_le32(r) << 32;
}

uint64_t pp_wire_varint(struct pp_wire *r)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10; i++) {
		if (!need(r, 1, "a varint"))
			return 0;
		uint8_t c = *r->p++;
		/* the tenth byte holds bit 63 only */
		if (i == 9 && c > 1) {
			pp_wire_fail(r, PP_EBAD_LENGTH, "a varint over 64 bits");
			return 0;
		}
		v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			return v;
	}
	pp_wire_fail(r, PP_EBAD_LENGTH, "a varint over 10 bytes");
	return 0;
}

uint32_t pp_wire_u32(struct pp_wire *r, const char *what)
{
	uint64_t v = pp_wire_varint(r);

	if (v > UINT32_MAX) {
		pp_wire_fail(r, PP_ERANGE, "%s %llu: over 32 bits", what, (unsigned long long)v);
		return 0;
	}
	return (uint32_t)v;
}

size_t pp_wire_count(struct pp_wire *r, size_t min_sz, size_t max, const char *what)
{
	uint64_t n = pp_wire_varint(r);

	if (r->err)
		return 0;
	if (n > max) {
		pp_wire_fail(r, PP_EBAD_LENGTH, "%llu %s: at most %zu", (unsigned long long)n, what,
			     max);
		return 0;
	}
	if (min_sz && n > (uint64_t)(r->end - r->p) / min_sz) {
		pp_wire_fail(r, PP_EBAD_LENGTH, "%llu %s in %zu bytes", (unsigned long long)n, what,
			     (size_t)(r->end - r->p));
		return 0;
	}
	return (size_t)n;
}

const uint8_t *pp_wire_skip(struct pp_wire *r, size_t n)
{
	const uint8_t *p = r->p;

	if (!need(r, n, "bytes"))
		return NULL;
	r->p += n;
	return p;
}

const uint8_t *pp_wire_bytes(struct pp_wire *r, size_t *n)
{
	uint64_t len = pp_wire_varint(r);

	*n = 0;
	if (r->err)
		return NULL;
	if (len > (uint64_t)(r->end - r->p)) {
		pp_wire_fail(r, PP_EBAD_LENGTH, "%llu bytes with %zu left", (unsigned long long)len,
			     (size_t)(r->end - r->p));
		return NULL;
	}
	*n = (size_t)len;
	return len ? pp_wire_skip(r, (size_t)len) : NULL;
}

const char *pp_wire_str(struct pp_wire *r)
{
	uint64_t len = pp_wire_varint(r);
	const char *s;

	if (r->err)
		return "";
	if (len >= (uint64_t)(r->end - r->p)) {
		pp_wire_fail(r, PP_EBAD_LENGTH, "a string of %llu bytes with %zu left",
			     (unsigned long long)len, (size_t)(r->end - r->p));
		return "";
	}
	s = (const char *)r->p;
	if (s[len] != '\0' || memchr(s, '\0', (size_t)len)) {
		pp_wire_fail(r, PP_EBAD_RECORD, "a string without its NUL, or with one inside");
		return "";
	}
	r->p += len + 1;
	return s;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

int pp_wire_hist(struct pp_wire *r, struct pp_hist *h)
{
	uint64_t count = pp_wire_varint(r), min, max, lo, hi, total = 0, idx = 0;
	uint64_t first = UINT64_MAX, last = 0, blo, bw;
	unsigned __int128 sum;
	size_t nr;

	if (r->err || !count)
		return r->err;
	min = pp_wire_varint(r);
	max = pp_wire_varint(r);
	lo = pp_wire_varint(r);
	hi = pp_wire_varint(r);
	/* a bucket is at least 2 bytes (gap, count) */
	nr = pp_wire_count(r, 2, (size_t)PP_HIST_GROUPS * PP_HIST_SUB, "histogram buckets");
	if (r->err)
		return r->err;
	if (!nr || min > max)
		return pp_wire_fail(r, PP_EBAD_RECORD, "a histogram of %llu values with %zu buckets, "
				    "min %llu, max %llu", (unsigned long long)count, nr,
				    (unsigned long long)min, (unsigned long long)max);
	for (size_t k = 0; k < nr; k++) {
		uint64_t gap = pp_wire_varint(r), n = pp_wire_varint(r);
		unsigned g, i;

		if (r->err)
			return r->err;
		if (gap >= (uint64_t)PP_HIST_GROUPS * PP_HIST_SUB - idx || !n)
			return pp_wire_fail(r, PP_EBAD_RECORD, "histogram bucket %zu: index gap %llu "
					    "after %llu, count %llu", k, (unsigned long long)gap,
					    (unsigned long long)idx, (unsigned long long)n);
		idx += gap;
		g = (unsigned)(idx / PP_HIST_SUB);
		i = (unsigned)(idx % PP_HIST_SUB);
		if (!h->groups[g]) {
			if (!r->hist_groups_left)
				return pp_wire_fail(r, PP_ERANGE, "histograms over %u KiB of buckets",
						    PP_WIRE_HIST_GROUPS);
			r->hist_groups_left--;
			h->groups[g] = pp_xcalloc(PP_HIST_SUB, sizeof(uint64_t));
		}
		h->groups[g][i] = n;
		h->group_count[g] = sat_add(h->group_count[g], n);
		total = sat_add(total, n);
		if (first == UINT64_MAX)
			first = idx;
		last = idx;
		idx++;
	}
	if (total != count)
		return pp_wire_fail(r, PP_EBAD_RECORD, "histogram buckets hold %llu values, its count "
				    "says %llu", (unsigned long long)total, (unsigned long long)count);
	/* min and max lie in the first and last buckets, as pp_hist_add_n() leaves them */
	pp_hist_bucket_of(min, &blo, &bw);
	if (blo != (first < PP_HIST_SUB ? first : ((first % PP_HIST_SUB + PP_HIST_SUB)
						   << (first / PP_HIST_SUB - 1))))
		return pp_wire_fail(r, PP_EBAD_RECORD, "histogram min %llu outside its first bucket",
				    (unsigned long long)min);
	pp_hist_bucket_of(max, &blo, &bw);
	if (blo != (last < PP_HIST_SUB ? last : ((last % PP_HIST_SUB + PP_HIST_SUB)
						 << (last / PP_HIST_SUB - 1))))
		return pp_wire_fail(r, PP_EBAD_RECORD, "histogram max %llu outside its last bucket",
				    (unsigned long long)max);
	sum = (unsigned __int128)hi << 64 | lo;
	if (count != UINT64_MAX &&
	    (sum < (unsigned __int128)count * min || sum > (unsigned __int128)count * max))
		return pp_wire_fail(r, PP_EBAD_RECORD, "histogram sum outside count * [min, max]");
	h->count = count;
	h->min = min;
	h->max = max;
	h->sum = sum;
	return 0;
}
