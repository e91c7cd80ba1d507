/* SPDX-License-Identifier: MIT */
/*
 * json.c - the JSON reader of json.h: recursive descent over the text.
 *
 * Every nesting goes through value(), which counts the depth; every read
 * checks the end of the text; numbers are checked against the grammar before
 * strtod() sees them (strtod takes hex, "inf", leading '+').  On an error the
 * tree built so far is freed by the caller of value(): a node is attached to
 * its parent before its children are parsed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/json.h"
#include "common/log.h"

struct jp {
	const char *s;
	size_t len, pos;
	int depth;
	char *err;
	size_t errsz;
	int rc;
};

static int fail(struct jp *p, int rc, const char *fmt, ...) PP_PRINTF(3, 4);
static int fail(struct jp *p, int rc, const char *fmt, ...)
{
	va_list ap;
	char msg[200];

	if (p->rc)
		return p->rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errsz)
		snprintf(p->err, p->errsz, "offset %zu: %s", p->pos, msg);
	p->rc = rc;
	return rc;
}

static void skip_ws(struct jp *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static bool take(struct jp *p, char c)
{
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == c) {
		p->pos++;
		return true;
	}
	return false;
}

static bool take_word(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
		return false;
	p->pos += n;
	return true;
}

static int hex4(struct jp *p, unsigned *out)
{
	unsigned v = 0;

	if (p->len - p->pos < 4)
		return fail(p, PP_ESYNTAX, "\\u needs four hex digits");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, PP_ESYNTAX, "\\u needs four hex digits");
	}
	*out = v;
	return 0;
}

static void put_utf8(struct pp_buf *b, unsigned cp)
{
	if (cp < 0x80) {
		pp_buf_addch(b, (int)cp);
	} else if (cp < 0x800) {
		pp_buf_addch(b, (int)(0xc0 | cp >> 6));
		pp_buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		pp_buf_addch(b, (int)(0xe0 | cp >> 12));
		pp_buf_addch(b, (int)(0x80 | (cp >> 6 & 0x3f)));
		pp_buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else {
		pp_buf_addch(b, (int)(0xf0 | cp >> 18));
		pp_buf_addch(b, (int)(0x80 | (cp >> 12 & 0x3f)));
		pp_buf_addch(b, (int)(0x80 | (cp >> 6 & 0x3f)));
		pp_buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	}
}

/* A \u escape, the 'u' taken: one code point, a surrogate pair joined. */
static int escape_u(struct jp *p, struct pp_buf *b)
{
	unsigned cp, lo;

	if (hex4(p, &cp))
		return p->rc;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(p, PP_ESYNTAX, "a lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (!take_word(p, "\\u") || hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return fail(p, PP_ESYNTAX, "a high surrogate without its low half");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!cp)
		return fail(p, PP_ESYNTAX, "\\u0000 in a string");
	put_utf8(b, cp);
	return 0;
}

/* A string, the opening quote taken. Return: new, or NULL on error. */
static char *string(struct jp *p)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_grow(&b, 16);
	for (;;) {
		if (p->pos >= p->len) {
			fail(p, PP_ESYNTAX, "unterminated string");
			goto err;
		}
		unsigned char c = (unsigned char)p->s[p->pos++];

		if (c == '"')
			break;
		if (c < 0x20) {
			p->pos--;
			fail(p, PP_ESYNTAX, "a control character in a string");
			goto err;
		}
		if (c != '\\') {
			pp_buf_addch(&b, c);
			continue;
		}
		if (p->pos >= p->len) {
			fail(p, PP_ESYNTAX, "unterminated string");
			goto err;
		}
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"': case '\\': case '/': pp_buf_addch(&b, c); break;
		case 'b': pp_buf_addch(&b, '\b'); break;
		case 'f': pp_buf_addch(&b, '\f'); break;
		case 'n': pp_buf_addch(&b, '\n'); break;
		case 'r': pp_buf_addch(&b, '\r'); break;
		case 't': pp_buf_addch(&b, '\t'); break;
		case 'u':
			if (escape_u(p, &b))
				goto err;
			break;
		default:
			p->pos--;
			fail(p, PP_ESYNTAX, "bad escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
			goto err;
		}
	}
	return pp_buf_detach(&b);
err:
	pp_buf_release(&b);
	return NULL;
}

static size_t digits(struct jp *p)
{
	size_t n = 0;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		p->pos++;
		n++;
	}
	return n;
}

static int number(struct jp *p, struct pp_json *j)
{
	size_t start = p->pos;

	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	if (p->pos < p->len && p->s[p->pos] == '0')
		p->pos++;
	else if (!digits(p))
		return fail(p, PP_ESYNTAX, "bad number");
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, PP_ESYNTAX, "bad number: digits after '.'");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p))
			return fail(p, PP_ESYNTAX, "bad number: digits in the exponent");
	}
	j->type = PP_JSON_NUM;
	j->str = pp_xstrndup(p->s + start, p->pos - start);
	j->num = strtod(j->str, NULL);
	return 0;
}

static int value(struct jp *p, struct pp_json *j);

static struct pp_json *append(struct pp_json *j)
{
	struct pp_json *c = pp_xcalloc(1, sizeof(*c));

	if (!(j->nr & (j->nr - 1))) {	/* 0, 1, 2, 4, 8 ...: full */
		size_t cap = j->nr ? j->nr * 2 : 1;

		j->v = pp_xrealloc(j->v, cap * sizeof(*j->v));
		if (j->type == PP_JSON_OBJ)
			j->keys = pp_xrealloc(j->keys, cap * sizeof(*j->keys));
	}
	if (j->type == PP_JSON_OBJ)
		j->keys[j->nr] = NULL;
	j->v[j->nr++] = c;
	return c;
}

static int array(struct jp *p, struct pp_json *j)
{
	j->type = PP_JSON_ARR;
	if (take(p, ']'))
		return 0;
	do {
		if (value(p, append(j)))
			return p->rc;
	} while (take(p, ','));
	if (!take(p, ']'))
		return fail(p, PP_ESYNTAX, "expected ',' or ']'");
	return 0;
}

static int object(struct jp *p, struct pp_json *j)
{
	j->type = PP_JSON_OBJ;
	if (take(p, '}'))
		return 0;
	do {
		struct pp_json *m;

		if (!take(p, '"'))
			return fail(p, PP_ESYNTAX, "expected a member name");
		char *key = string(p);

		if (!key)
			return p->rc;
		m = append(j);
		j->keys[j->nr - 1] = key;
		if (!take(p, ':'))
			return fail(p, PP_ESYNTAX, "expected ':'");
		if (value(p, m))
			return p->rc;
	} while (take(p, ','));
	if (!take(p, '}'))
		return fail(p, PP_ESYNTAX, "expected ',' or '}'");
	return 0;
}

static int value(struct jp *p, struct pp_json *j)
{
	int rc;

	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, PP_ESYNTAX, "expected a value at the end");
	if (++p->depth > PP_JSON_MAX_DEPTH)
		return fail(p, PP_ERANGE, "nested deeper than %d", PP_JSON_MAX_DEPTH);
	switch (p->s[p->pos]) {
	case '{': p->pos++; rc = object(p, j); break;
	case '[': p->pos++; rc = array(p, j); break;
	case '"':
		p->pos++;
		j->type = PP_JSON_STR;
		j->str = string(p);
		rc = j->str ? 0 : p->rc;
		break;
	case 't': case 'f': case 'n':
		if (take_word(p, "true") || take_word(p, "false")) {
			j->type = PP_JSON_BOOL;
			j->b = p->s[p->pos - 4] == 't';
			rc = 0;
		} else if (take_word(p, "null")) {
			j->type = PP_JSON_NULL;
			rc = 0;
		} else {
			rc = fail(p, PP_ESYNTAX, "unexpected '%c'", p->s[p->pos]);
		}
		break;
	default:
		if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9')) {
			rc = number(p, j);
			break;
		}
		rc = fail(p, PP_ESYNTAX, "unexpected %s",
			  p->s[p->pos] >= 0x20 && p->s[p->pos] < 0x7f ? "character" : "byte");
		break;
	}
	p->depth--;
	return rc;
}

int pp_json_parse(const char *text, size_t len, size_t *end, struct pp_json **out, char *err,
		  size_t errsz)
{
	struct jp p = { .s = text, .len = len, .err = err, .errsz = errsz };
	struct pp_json *j = pp_xcalloc(1, sizeof(*j));

	*out = NULL;
	if (value(&p, j))
		goto err;
	skip_ws(&p);
	if (end)
		*end = p.pos;
	else if (p.pos < len && fail(&p, PP_ESYNTAX, "text after the value"))
		goto err;
	*out = j;
	return 0;
err:
	pp_json_free(j);
	return p.rc;
}

void pp_json_free(struct pp_json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nr; i++) {
		pp_json_free(j->v[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->v);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct pp_json *pp_json_get(const struct pp_json *j, const char *key)
{
	if (!j || j->type != PP_JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < j->nr; i++)
		if (j->keys[i] && !strcmp(j->keys[i], key))
			return j->v[i];
	return NULL;
}
