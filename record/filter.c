/* SPDX-License-Identifier: MIT */
/*
 * filter.c - checking filters without evaluating them.
 *
 * A tokenizer and a two-state machine (expecting a value / an operator) with
 * a stack of open brackets: enough to catch what people mistype ("pid==",
 * unbalanced parentheses, unterminated strings, unknown fields) while
 * accepting everything the kernel grammar and the expression language allow.
 * Not here: evaluation.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "filter.h"

static bool is_ident0(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

int rec_format_has_field(const char *format, const char *name, size_t len)
{
	const char *p = format;

	while ((p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *e, *b;

		if (!semi)
			break;
		e = semi;
		/* "char comm[16]" -> comm; "__data_loc char[] name" -> name */
		if (e > p && e[-1] == ']') {
			while (e > p && *e != '[')
				e--;
		}
		b = e;
		while (b > p && is_ident((unsigned char)b[-1]))
			b--;
		if ((size_t)(e - b) == len && !strncmp(b, name, len))
			return 1;
		p = semi;
	}
	return 0;
}

static bool is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"char", "short", "int", "long", "unsigned", "signed", "void", "sizeof",
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bool", "const",
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i]) == n && !strncmp(kw[i], s, n))
			return true;
	return false;
}

/* Names every event accepts: the kernel's special fields and the expression globals. */
static bool is_global(const char *s, size_t n)
{
	static const char *const g[] = { "cpu", "CPU", "comm", "COMM", "_cpu", "_pid", "key" };
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (strlen(g[i]) == n && !strncmp(g[i], s, n))
			return true;
	return false;
}

/* The length of a binary operator at @p, 0 if none. */
static size_t binop_len(const char *p)
{
	static const char *const ops2[] = { "==", "!=", "<=", ">=", "&&", "||", "<<", ">>" };
	for (size_t i = 0; i < sizeof(ops2) / sizeof(ops2[0]); i++)
		if (!strncmp(p, ops2[i], 2))
			return 2;
	return strchr("<>&|^+-*/%~?:=", *p) ? 1 : 0;
}

#define MAX_DEPTH 64

int rec_filter_check(const char *filter, const char *format, char *msg, size_t msg_sz)
{
	char stack[MAX_DEPTH];
	int depth = 0;
	bool want_value = true, fn_rhs = false;
	const char *p = filter;

	while (*p) {
		const char *tok = p;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (want_value) {
			if (*p == '(') {
				/* a cast: (unsigned long *) */
				const char *q = p + 1;
				bool cast = false;

				while (isspace((unsigned char)*q))
					q++;
				while (is_ident0((unsigned char)*q)) {
					const char *w = q;

					while (is_ident((unsigned char)*q))
						q++;
					if (!is_keyword(w, (size_t)(q - w))) {
						cast = false;
						break;
					}
					cast = true;
					while (isspace((unsigned char)*q) || *q == '*')
						q++;
				}
				if (cast && *q == ')') {
					p = q + 1;
					continue;
				}
				if (depth == MAX_DEPTH)
					goto too_deep;
				stack[depth++] = ')';
				p++;
				continue;
			}
			if (strchr("!~-+*&", *p)) {
				p++;
				continue;
			}
			if (*p == '"' || *p == '\'') {
				char q = *p++;

				while (*p && *p != q)
					p += (*p == '\\' && p[1]) ? 2 : 1;
				if (!*p) {
					snprintf(msg, msg_sz, "unterminated string in filter '%s'", filter);
					return PP_ESYNTAX;
				}
				p++;
				want_value = false;
				fn_rhs = false;
				continue;
			}
			if (isdigit((unsigned char)*p)) {
				while (isalnum((unsigned char)*p) || *p == '.')
					p++;
				want_value = false;
				fn_rhs = false;
				continue;
			}
			if (is_ident0((unsigned char)*p)) {
				size_t n;

				while (is_ident((unsigned char)*p))
					p++;
				n = (size_t)(p - tok);
				if (n == 4 && !strncmp(tok, "CPUS", 4) && *p == '{') {
					const char *e = strchr(p, '}');

					if (!e) {
						snprintf(msg, msg_sz, "unterminated CPUS{...} in filter '%s'",
							 filter);
						return PP_ESYNTAX;
					}
					p = e + 1;
					want_value = false;
					continue;
				}
				const char *q = p;

				while (isspace((unsigned char)*q))
					q++;
				if (*q == '(') {	/* a call: printf(...), comm_get(_pid) */
					if (depth == MAX_DEPTH)
						goto too_deep;
					stack[depth++] = ')';
					p = q + 1;
					while (isspace((unsigned char)*p))
						p++;
					if (*p == ')') {
						depth--;
						p++;
						want_value = false;
					}
					continue;
				}
				if (is_keyword(tok, n))
					continue;	/* sizeof x */
				/* field.suffix: .ustring, .function, .hex ... */
				if (*p == '.' && is_ident0((unsigned char)p[1])) {
					for (p++; is_ident((unsigned char)*p);)
						p++;
				}
				if (format && !fn_rhs && !is_global(tok, n) &&
				    !rec_format_has_field(format, tok, n)) {
					snprintf(msg, msg_sz, "unknown field '%.*s' in filter '%s'",
						 (int)n, tok, filter);
					return PP_EUNKNOWN_FIELD;
				}
				fn_rhs = false;
				want_value = false;
				continue;
			}
			snprintf(msg, msg_sz, "expected a value at '%s' in filter '%s'", tok, filter);
			return PP_ESYNTAX;
		}
		/* want an operator */
		if (*p == ')' || *p == ']' || *p == '}') {
			if (!depth || stack[depth - 1] != *p) {
				snprintf(msg, msg_sz, "unbalanced '%c' in filter '%s'", *p, filter);
				return PP_ESYNTAX;
			}
			depth--;
			p++;
			continue;
		}
		if (*p == '[') {
			if (depth == MAX_DEPTH)
				goto too_deep;
			stack[depth++] = ']';
			p++;
			want_value = true;
			continue;
		}
		if (*p == ',' && depth && stack[depth - 1] == ')') {
			p++;
			want_value = true;
			continue;
		}
		if (!strncmp(p, "++", 2) || !strncmp(p, "--", 2)) {
			p += 2;
			continue;
		}
		size_t n = binop_len(p);

		if (!n) {
			snprintf(msg, msg_sz, "expected an operator at '%s' in filter '%s'", tok, filter);
			return PP_ESYNTAX;
		}
		/*
		 * The right side of a comparison may be a bare kernel symbol
		 * (field.function == kfree) or an unquoted string (comm == bash).
		 */
		fn_rhs = (n == 2 && strchr("=!<>", *p)) || (n == 1 && strchr("<>~", *p));
		p += n;
		want_value = true;
	}
	if (want_value) {
		snprintf(msg, msg_sz, "filter '%s' ends where a value is expected", filter);
		return PP_ESYNTAX;
	}
	if (depth) {
		snprintf(msg, msg_sz, "missing '%c' in filter '%s'", stack[depth - 1],
			 filter);
		return PP_ESYNTAX;
	}
	return 0;
too_deep:
	snprintf(msg, msg_sz, "filter '%s' nests too deeply", filter);
	return PP_ESYNTAX;
}
