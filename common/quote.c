/* SPDX-License-Identifier: MIT */
/*
 * quote.c - escaping of capture text for terminals, and a stream that does it.
 *
 * The scan is the hot part (every trace line passes the net): eight bytes at
 * a time while they are all printable ASCII, byte by byte only around what
 * is not.  Worked example, field rule: the bytes 61 62 1b 5d 30 3b 07 ff c3 a9 09
 * (an OSC title "ab ESC ]0; BEL", a stray 0xff, a UTF-8 "é", a tab) are written
 * as the text  ab\x1b]0;\x07\xffé\t  - every unsafe byte four characters, the
 * tab two, the valid UTF-8 as it is.
 * Not here: what is quoted where (the printers call these).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Whether the 8 bytes of @w are all 0x20..0x7e. */
static inline bool word_plain(uint64_t w)
{
	uint64_t lt20 = (w - ONES * 0x20) & ~w & HIGHS;
	uint64_t x7f = w ^ (ONES * 0x7f);
	uint64_t is7f = (x7f - ONES) & ~x7f & HIGHS;

	return !(w & HIGHS) && !lt20 && !is7f;
}

/*
 * What to do with the byte(s) at @p (@n left): 0 = write @len bytes as they are,
 * 1 = escape one byte.  C1 controls in UTF-8 (c2 80..c2 9f) escape byte by byte.
 */
static int classify(const unsigned char *p, size_t n, enum pp_quote_rule rule, size_t *len)
{
	*len = 1;
	if (*p >= 0x20 && *p < 0x7f)
		return 0;
	if (*p < 0x80) {
		if (rule == PP_QUOTE_TEXT && (*p == '\t' || *p == '\n'))
			return 0;
		return 1;
	}
	size_t l = pp_utf8_seq_len(p, n);
	if (!l || (l == 2 && p[0] == 0xc2 && p[1] < 0xa0))
		return 1;
	*len = l;
	return 0;
}

size_t pp_quote_safe_len(const char *s, size_t n, enum pp_quote_rule rule)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
#ifdef __SSE2__
	/*
	 * Sixteen bytes at a time: as signed bytes, every one below 0x20 is either a
	 * C0 control or >= 0x80; with DEL, that is every byte the slow path looks at
	 * (but tab and newline, under the text rule: a report's lines stay fast).
	 */
	const __m128i lo = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	const __m128i tab = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n');
	const bool text = rule == PP_QUOTE_TEXT;
#endif

	while (p < end) {
		size_t len;

#ifdef __SSE2__
		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i bad = _mm_cmplt_epi8(v, lo);

			if (text)
				bad = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab),
								    _mm_cmpeq_epi8(v, nl)), bad);
			if (_mm_movemask_epi8(_mm_or_si128(bad, _mm_cmpeq_epi8(v, del))))
				break;
			p += 16;
		}
#endif
		if (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, 8);
			if (word_plain(w)) {
				p += 8;
				continue;
			}
		}
		if (p >= end || classify(p, (size_t)(end - p), rule, &len))
			break;
		p += len;
	}
	return (size_t)(p - (const unsigned char *)s);
}

/*
 * Printable ASCII up to the NUL: the common name (a comm, a symbol, a path), one
 * pass, no strlen.  With SSE2, sixteen bytes a step from aligned loads, as strlen
 * does: an aligned load never crosses into the next page, so reading the bytes
 * after the NUL in its block is harmless (outside the sanitizers' view).
 */
#ifdef __SSE2__
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize("address", "thread")))
#endif
static bool plain_cstr(const char *s)
{
	const __m128i lo = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	uintptr_t off = (uintptr_t)s & 15;
	const char *blk = s - off;
	unsigned mask = ~0u << off;	/* the bytes of the first block before @s do not count */

	for (;;) {
		__m128i v = _mm_load_si128((const __m128i *)(const void *)blk);
		unsigned bad = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, lo),
									_mm_cmpeq_epi8(v, del)));
		bad &= mask;
		if (bad)	/* the first byte that is not printable ASCII: the NUL? */
			return blk[__builtin_ctz(bad)] == '\0';
		blk += 16;
		mask = ~0u;
	}
}
#else
static bool plain_cstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p >= 0x20 && *p < 0x7f)
		p++;
	return !*p;
}
#endif

bool pp_quote_needed(const char *s)
{
	size_t n;

	if (plain_cstr(s))
		return false;
	n = strlen(s);
	return pp_quote_safe_len(s, n, PP_QUOTE_FIELD) != n;
}

static size_t escape_one(unsigned char c, char out[4])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	switch (c) {
	case '\t': out[1] = 't'; return 2;
	case '\n': out[1] = 'n'; return 2;
	case '\r': out[1] = 'r'; return 2;
	}
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

void pp_buf_add_quoted(struct pp_buf *b, const char *s, size_t n, enum pp_quote_rule rule)
{
	const char *end = s + n;

	while (s < end) {
		size_t ok = pp_quote_safe_len(s, (size_t)(end - s), rule);
		char esc[4];

		pp_buf_add(b, s, ok);
		s += ok;
		if (s >= end)
			break;
		pp_buf_add(b, esc, escape_one((unsigned char)*s, esc));
		s++;
	}
	if (!b->data)
		pp_buf_grow(b, 1);	/* a C string even when @n is 0 */
}

const char *pp_quote_str(struct pp_buf *scratch, const char *s)
{
	size_t n;

	if (plain_cstr(s))
		return s;
	n = strlen(s);
	if (pp_quote_safe_len(s, n, PP_QUOTE_FIELD) == n)
		return s;
	pp_buf_reset(scratch);
	pp_buf_add_quoted(scratch, s, n, PP_QUOTE_FIELD);
	return pp_buf_str(scratch);
}

size_t pp_quote_width(const char *s)
{
	const char *end = s + strlen(s);
	size_t w = 0;

	while (s < end) {
		size_t ok = pp_quote_safe_len(s, (size_t)(end - s), PP_QUOTE_FIELD);
		char esc[4];

		w += ok;
		s += ok;
		if (s < end) {
			w += escape_one((unsigned char)*s, esc);
			s++;
		}
	}
	return w;
}

/* --- The stream ---------------------------------------------------------------- */

struct quote_cookie {
	FILE *under;
	unsigned char held[4];	/* the start of a UTF-8 sequence the last write cut */
	size_t nr_held;
	struct pp_buf out;
};

/* Whether @p (@n bytes, fewer than its sequence needs) may still become valid UTF-8. */
static bool utf8_incomplete(const unsigned char *p, size_t n)
{
	size_t need = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;

	if (p[0] < 0xc2 || p[0] > 0xf4 || n >= need)
		return false;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/* The tail of @p (@n) to hold back: an incomplete UTF-8 start in the last 3 bytes. */
static size_t tail_to_hold(const unsigned char *p, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned char c = p[n - k];
		if (c >= 0xc0)
			return utf8_incomplete(p + n - k, k) ? k : 0;
		if ((c & 0xc0) != 0x80)
			return 0;
	}
	return 0;
}

static ssize_t quote_write(void *arg, const char *buf, size_t size)
{
	struct quote_cookie *c = arg;
	const unsigned char *in = (const unsigned char *)buf;
	unsigned char *joined = NULL;
	size_t n = size, hold;

	if (c->nr_held) {
		joined = malloc(c->nr_held + size);
		if (!joined)
			return 0;
		memcpy(joined, c->held, c->nr_held);
		memcpy(joined + c->nr_held, buf, size);
		in = joined;
		n = c->nr_held + size;
		c->nr_held = 0;
	}
	hold = tail_to_hold(in, n);
	memcpy(c->held, in + n - hold, hold);
	c->nr_held = hold;
	pp_buf_reset(&c->out);
	if (pp_quote_safe_len((const char *)in, n - hold, PP_QUOTE_TEXT) == n - hold) {
		if (n - hold && fwrite(in, 1, n - hold, c->under) != n - hold)
			size = 0;
	} else {
		pp_buf_add_quoted(&c->out, (const char *)in, n - hold, PP_QUOTE_TEXT);
		if (fwrite(c->out.data, 1, c->out.len, c->under) != c->out.len)
			size = 0;
	}
	free(joined);
	return (ssize_t)size;
}

static int quote_close(void *arg)
{
	struct quote_cookie *c = arg;
	int rc = 0;

	if (c->nr_held) {
		pp_buf_reset(&c->out);
		pp_buf_add_quoted(&c->out, (const char *)c->held, c->nr_held, PP_QUOTE_TEXT);
		if (fwrite(c->out.data, 1, c->out.len, c->under) != c->out.len)
			rc = EOF;
	}
	if (fflush(c->under))
		rc = EOF;
	pp_buf_release(&c->out);
	free(c);
	return rc;
}

FILE *pp_quote_fopen(FILE *under)
{
	struct quote_cookie *c = calloc(1, sizeof(*c));
	cookie_io_functions_t io = { .write = quote_write, .close = quote_close };
	FILE *fp;

	if (!c)
		return NULL;
	c->under = under;
	fp = fopencookie(c, "w", io);
	if (!fp) {
		free(c);
		return NULL;
	}
	setvbuf(fp, NULL, _IONBF, 0);
	return fp;
}
