/* SPDX-License-Identifier: MIT */
/*
 * expr-lex.c - tokens of the expression language.
 *
 * The lexer reads one token ahead on demand (pp_expr_lex_next()), decodes
 * numbers with C's type rules and string literals with their escapes, and
 * skips # and // line comments and C comments.  For filters the parser can
 * ask for the next word raw, as an unquoted string (comm == bash).  Type
 * names (keywords and the kernel's u8..s64) are read here too.
 * Errors longjmp to the parser's entry point through pp_expr_fail().
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/expr-internal.h"
#include "common/log.h"

void pp_expr_fail(struct expr_parser *p, int code, int pos, const char *fmt, ...)
{
	va_list ap;

	if (p->err) {
		p->err->pos = pos;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	p->ret = code;
	longjmp(p->fail, 1);
}

static void str_add(struct expr_parser *p, char c)
{
	if (p->str_len + 1 >= p->str_alloc) {
		p->str_alloc = p->str_alloc ? p->str_alloc * 2 : 64;
		p->str = pp_xrealloc(p->str, p->str_alloc);
	}
	p->str[p->str_len++] = c;
	p->str[p->str_len] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The character of the escape sequence at s[*i] (just after the '\'). */
static char lex_escape(struct expr_parser *p, int *i)
{
	const char *s = p->src;
	int c = *i < p->len ? s[*i] : 0;
	int v = 0, n;

	(*i)++;
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case 'e': return 27;
	case 'x':
		for (n = 0; n < 2 && *i < p->len && hexval(s[*i]) >= 0; n++, (*i)++)
			v = v * 16 + hexval(s[*i]);
		if (!n)
			pp_expr_fail(p, PP_ESYNTAX, *i - 2, "\\x needs hex digits");
		return (char)v;
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
		v = c - '0';
		for (n = 1; n < 3 && *i < p->len && s[*i] >= '0' && s[*i] <= '7'; n++, (*i)++)
			v = v * 8 + s[*i] - '0';
		return (char)v;
	case 0:
		pp_expr_fail(p, PP_ESYNTAX, *i - 2, "unterminated escape");
	default:
		return (char)c;
	}
}

static void lex_string(struct expr_parser *p, int i)
{
	const char *s = p->src;
	int start = i++;

	p->str_len = 0;
	str_add(p, 0);
	p->str_len = 0;
	while (i < p->len && s[i] != '"') {
		if (s[i] == '\\') {
			i++;
			str_add(p, lex_escape(p, &i));
		} else {
			str_add(p, s[i++]);
		}
	}
	if (i >= p->len)
		pp_expr_fail(p, PP_ESYNTAX, start, "unterminated string");
	p->tok = TK_STR;
	p->cur = i + 1;
}

static void lex_char(struct expr_parser *p, int i)
{
	const char *s = p->src;
	int start = i++;
	char c;

	if (i >= p->len || s[i] == '\'')
		pp_expr_fail(p, PP_ESYNTAX, start, "empty character constant");
	if (s[i] == '\\') {
		i++;
		c = lex_escape(p, &i);
	} else {
		c = s[i++];
	}
	if (i >= p->len || s[i] != '\'')
		pp_expr_fail(p, PP_ESYNTAX, start, "bad character constant");
	p->tok = TK_NUM;
	p->num = (signed char)c;
	p->num_type = expr_type_make(B_INT, false, 0);
	p->cur = i + 1;
}

/* C's rules: the first of int, unsigned int (not decimal), long, unsigned long that fits. */
static struct expr_type number_type(uint64_t v, bool dec, bool u, bool l)
{
	if (!l && !u && v <= INT32_MAX)
		return expr_type_make(B_INT, false, 0);
	if (!l && (u || !dec) && v <= UINT32_MAX)
		return expr_type_make(B_INT, true, 0);
	if (!u && v <= INT64_MAX)
		return expr_type_make(B_LONG, false, 0);
	return expr_type_make(B_LONG, true, 0);
}

/* A decimal constant of PP_EXPR_DOUBLE: digits, then '.' or an exponent (strtod's decimal form). */
static bool lex_double(struct expr_parser *p, int i)
{
	const char *s = p->src;
	char text[80], *end;
	int j = i, n;
	double d;

	while (j < p->len && isdigit((unsigned char)s[j]))
		j++;
	if (j >= p->len || (s[j] != '.' && s[j] != 'e' && s[j] != 'E'))
		return false;
	n = p->len - i < (int)sizeof(text) - 1 ? p->len - i : (int)sizeof(text) - 1;
	memcpy(text, s + i, (size_t)n);
	text[n] = '\0';
	d = strtod(text, &end);
	j = i + (int)(end - text);
	if (j < p->len && (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '.'))
		pp_expr_fail(p, PP_ESYNTAX, i, "invalid decimal constant");
	if (d != d || d - d != 0)
		pp_expr_fail(p, PP_ERANGE, i, "decimal constant is too large");
	p->tok = TK_NUM;
	memcpy(&p->num, &d, sizeof(d));
	p->num_type = expr_type_make(B_DOUBLE, false, 0);
	p->cur = j;
	return true;
}

static void lex_number(struct expr_parser *p, int i)
{
	const char *s = p->src;
	int start = i, base = 10, d;
	uint64_t v = 0;
	bool u = false, l = false, any = false;

	if ((p->env->flags & PP_EXPR_DOUBLE) && lex_double(p, i))
		return;

	if (s[i] == '0' && i + 1 < p->len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (s[i] == '0') {
		base = 8;
	}
	for (; i < p->len && (d = hexval(s[i])) >= 0; i++) {
		if (d >= base) {
			if (base == 8 && d < 10)
				pp_expr_fail(p, PP_ESYNTAX, i, "invalid digit in octal constant");
			break;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			pp_expr_fail(p, PP_ERANGE, start, "integer constant is too large");
		v = v * (uint64_t)base + (uint64_t)d;
		any = true;
	}
	if (!any && base == 16)
		pp_expr_fail(p, PP_ESYNTAX, start, "invalid number");
	for (int n = 0; n < 3 && i < p->len; n++, i++) {
		if ((s[i] == 'u' || s[i] == 'U') && !u)
			u = true;
		else if (s[i] == 'l' || s[i] == 'L')
			l = true;
		else
			break;
	}
	if (i < p->len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
		pp_expr_fail(p, PP_ESYNTAX, i, "invalid suffix on number");
	p->tok = TK_NUM;
	p->num = (int64_t)v;
	p->num_type = number_type(v, base == 10, u, l);
	p->cur = i;
}

/* Operators of two or three characters, longest first. */
static const struct {
	const char *text;
	int tok;
} multi_ops[] = {
	{ "<<=", TK_ASSIGN_OP }, { ">>=", TK_ASSIGN_OP },
	{ "++", TK_INC }, { "--", TK_DEC }, { "<<", TK_SHL }, { ">>", TK_SHR },
	{ "<=", TK_LE }, { ">=", TK_GE }, { "==", TK_EQ }, { "!=", TK_NE },
	{ "&&", TK_LAND }, { "||", TK_LOR }, { "->", TK_ARROW },
	{ "+=", TK_ASSIGN_OP }, { "-=", TK_ASSIGN_OP }, { "*=", TK_ASSIGN_OP },
	{ "/=", TK_ASSIGN_OP }, { "%=", TK_ASSIGN_OP }, { "&=", TK_ASSIGN_OP },
	{ "|=", TK_ASSIGN_OP }, { "^=", TK_ASSIGN_OP },
};

static int skip_space(struct expr_parser *p, int i)
{
	const char *s = p->src;

	for (;;) {
		while (i < p->len && isspace((unsigned char)s[i]))
			i++;
		bool line = i < p->len && (s[i] == '#' ||
					   (s[i] == '/' && i + 1 < p->len && s[i + 1] == '/'));

		if (line) {
			while (i < p->len && s[i] != '\n')
				i++;
		} else if (i + 1 < p->len && s[i] == '/' && s[i + 1] == '*') {
			const char *end = NULL;
			int start = i;

			for (i += 2; i + 1 < p->len; i++)
				if (s[i] == '*' && s[i + 1] == '/') {
					end = s + i;
					break;
				}
			if (!end)
				pp_expr_fail(p, PP_ESYNTAX, start, "unterminated comment");
			i += 2;
		} else {
			return i;
		}
	}
}

void pp_expr_lex_next(struct expr_parser *p)
{
	const char *s = p->src;
	int i = skip_space(p, p->cur);

	p->tok_pos = i;
	if (i >= p->len) {
		p->tok = TK_EOF;
		p->cur = p->tok_end = p->len;
		return;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		bool dotted = p->env->flags & PP_EXPR_DOTTED_NAMES;

		while (i < p->len && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
				      (dotted && s[i] == '.' && i + 1 < p->len &&
				       (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '_'))))
			i++;
		p->tok = TK_ID;
		p->cur = i;
	} else if (isdigit((unsigned char)s[i])) {
		lex_number(p, i);
	} else if (s[i] == '"') {
		lex_string(p, i);
	} else if (s[i] == '\'') {
		lex_char(p, i);
	} else {
		for (size_t k = 0; k < PP_ARRAY_SIZE(multi_ops); k++) {
			size_t n = strlen(multi_ops[k].text);

			if ((size_t)(p->len - i) >= n && !memcmp(s + i, multi_ops[k].text, n)) {
				p->tok = multi_ops[k].tok;
				p->cur = p->tok_end = i + (int)n;
				return;
			}
		}
		if (!strchr("+-*/%&|^~!<>=?:,()[]{}.", s[i]) || !s[i])
			pp_expr_fail(p, PP_ESYNTAX, i, isprint((unsigned char)s[i]) ?
				  "unexpected character '%c'" : "unexpected character 0x%02x",
				  (unsigned char)s[i]);
		p->tok = (unsigned char)s[i];
		p->cur = i + 1;
	}
	p->tok_end = p->cur;
}

bool pp_expr_tok_is(const struct expr_parser *p, const char *word)
{
	size_t n = strlen(word);

	return p->tok == TK_ID && (size_t)(p->tok_end - p->tok_pos) == n &&
	       !memcmp(p->src + p->tok_pos, word, n);
}

int pp_expr_lex_peek_word(struct expr_parser *p, int *b, int *e)
{
	const char *s = p->src;
	int i = skip_space(p, p->cur);

	if (i < p->len && s[i] == '\'') {	/* the kernel's 'string' */
		const char *q = memchr(s + i + 1, '\'', (size_t)(p->len - i - 1));

		if (!q)
			return 0;
		*b = i + 1;
		*e = (int)(q - s);
		return 2;
	}
	*b = i;
	while (i < p->len && !isspace((unsigned char)s[i]) && !strchr("()&|,\"'", s[i]))
		i++;
	*e = i;
	return i > *b;
}

void pp_expr_lex_take_word(struct expr_parser *p, int b, int e, int resume)
{
	p->str_len = 0;
	str_add(p, 0);
	p->str_len = 0;
	for (int i = b; i < e; i++)
		str_add(p, p->src[i]);
	p->tok = TK_STR;
	p->tok_pos = b;
	p->cur = p->tok_end = resume;
}

/* Type names: keywords, and the kernel's fixed-width typedefs. */
static const struct type_word {
	const char *name;
	int base;		/* -1: a modifier */
	bool uns;
	bool fixed;		/* a typedef: complete on its own */
} type_words[] = {
	{ "char", B_CHAR, false, false }, { "short", B_SHORT, false, false },
	{ "int", B_INT, false, false }, { "long", B_LONG, false, false },
	{ "void", B_VOID, false, false }, { "unsigned", -1, true, false },
	{ "signed", -1, false, false },
	{ "u8", B_CHAR, true, true }, { "u16", B_SHORT, true, true },
	{ "u32", B_INT, true, true }, { "u64", B_LONG, true, true },
	{ "s8", B_CHAR, false, true }, { "s16", B_SHORT, false, true },
	{ "s32", B_INT, false, true }, { "s64", B_LONG, false, true },
	{ "__u8", B_CHAR, true, true }, { "__u16", B_SHORT, true, true },
	{ "__u32", B_INT, true, true }, { "__u64", B_LONG, true, true },
	{ "__s8", B_CHAR, false, true }, { "__s16", B_SHORT, false, true },
	{ "__s32", B_INT, false, true }, { "__s64", B_LONG, false, true },
	{ "size_t", B_LONG, true, true }, { "pid_t", B_INT, false, true },
};

static const struct type_word *type_word(const struct expr_parser *p)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(type_words); i++)
		if (pp_expr_tok_is(p, type_words[i].name))
			return &type_words[i];
	return NULL;
}

bool pp_expr_type_word_find(const struct expr_parser *p)
{
	return type_word(p) != NULL;
}

/* [unsigned|signed] [char|short|int|long [long] [int]] or u8..s64, then '*'s. */
struct expr_type pp_expr_parse_type(struct expr_parser *p)
{
	const struct type_word *w;
	int base = -1, longs = 0, pos = p->tok_pos;
	bool uns = false, sign = false, fixed = false;

	while ((w = type_word(p))) {
		if (fixed || (w->fixed && (base >= 0 || uns || sign || longs)))
			pp_expr_fail(p, PP_ETYPE, p->tok_pos, "invalid type");
		if (w->fixed) {
			fixed = true;
			base = w->base;
			uns = w->uns;
		} else if (w->base < 0) {
			if (uns || sign)
				pp_expr_fail(p, PP_ETYPE, p->tok_pos, "invalid type");
			uns = w->uns;
			sign = !w->uns;
		} else if (w->base == B_LONG) {
			if (++longs > 2 || (base >= 0 && base != B_INT))
				pp_expr_fail(p, PP_ETYPE, p->tok_pos, "invalid type");
		} else if (w->base == B_INT && (longs || base == B_SHORT)) {
			/* "long int", "short int" */
		} else {
			if (base >= 0 || longs)
				pp_expr_fail(p, PP_ETYPE, p->tok_pos, "invalid type");
			base = w->base;
		}
		pp_expr_lex_next(p);
	}
	if (longs)
		base = B_LONG;
	if (base < 0)
		base = B_INT;
	if (base == B_VOID && (uns || sign))
		pp_expr_fail(p, PP_ETYPE, pos, "invalid type");

	struct expr_type t = expr_type_make(base, uns, 0);

	while (p->tok == '*') {
		if (++t.ptr > 7)
			pp_expr_fail(p, PP_ETYPE, p->tok_pos, "too many '*'");
		pp_expr_lex_next(p);
	}
	return t;
}

/* Whether the token after the current '(' starts a type name (a cast). */
bool pp_expr_paren_starts_type(struct expr_parser *p)
{
	int cur = p->cur, tok = p->tok, pos = p->tok_pos, end = p->tok_end;
	bool yes;

	pp_expr_lex_next(p);
	yes = type_word(p) != NULL;
	p->cur = cur;
	p->tok = tok;
	p->tok_pos = pos;
	p->tok_end = end;
	return yes;
}
