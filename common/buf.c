/* SPDX-License-Identifier: MIT */
/*
 * buf.c - growable byte buffer; see buf.h for the invariants.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"

void pp_buf_release(struct pp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
}

void pp_buf_grow(struct pp_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->alloc)
		return;
	size_t n = b->alloc ? b->alloc : 64;
	while (n < need)
		n *= 2;
	b->data = pp_xrealloc(b->data, n);
	b->alloc = n;
	b->data[b->len] = '\0';
}

void pp_buf_add(struct pp_buf *b, const void *p, size_t sz)
{
	pp_buf_grow(b, sz);
	if (sz)		/* an empty buffer's data may be NULL */
		memcpy(b->data + b->len, p, sz);
	b->len += sz;
	b->data[b->len] = '\0';
}

void pp_buf_adds(struct pp_buf *b, const char *s)
{
	pp_buf_add(b, s, strlen(s));
}

void pp_buf_addch(struct pp_buf *b, int c)
{
	pp_buf_grow(b, 1);
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

void pp_buf_addf(struct pp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	pp_buf_grow(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->alloc - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->alloc - b->len) {
		pp_buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, b->alloc - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *pp_buf_detach(struct pp_buf *b)
{
	char *p;

	pp_buf_grow(b, 0);
	p = b->data;
	b->data = NULL;
	b->len = b->alloc = 0;
	return p;
}

const char *pp_str_copy(char *dst, size_t dst_sz, const char *s, const char *end)
{
	size_t room = s < end ? (size_t)(end - s) : 0;
	size_t n = strnlen(s, room < dst_sz - 1 ? room : dst_sz - 1);

	memcpy(dst, s, n);
	dst[n] = '\0';
	return dst;
}

size_t pp_utf8_seq_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t c;

	if (!n || p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	if (len > n)
		return 0;
	c = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

void pp_buf_add_json_str(struct pp_buf *b, const char *s)
{
	pp_buf_addch(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80) {
			size_t n = pp_utf8_seq_len(p, strnlen((const char *)p, 4));
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
				/* a C1 control: the same code point, escaped (common/quote.h) */
				pp_buf_addf(b, "\\u%04x", p[1]);
				p++;
			} else if (n) {
				pp_buf_add(b, p, n);
				p += n - 1;
			} else {
				pp_buf_addf(b, "\\u%04x", *p);
			}
			continue;
		}
		switch (*p) {
		case '"': pp_buf_adds(b, "\\\""); break;
		case '\\': pp_buf_adds(b, "\\\\"); break;
		case '\n': pp_buf_adds(b, "\\n"); break;
		case '\t': pp_buf_adds(b, "\\t"); break;
		case '\r': pp_buf_adds(b, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				pp_buf_addf(b, "\\u%04x", *p);
			else
				pp_buf_addch(b, *p);
		}
	}
	pp_buf_addch(b, '"');
}
