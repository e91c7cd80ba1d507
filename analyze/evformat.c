/* SPDX-License-Identifier: MIT */
/*
 * evformat.c - the checks of a stored tracefs format text before libtraceevent parses it.
 *
 * libtraceevent's parser trusts its text: the kernel writes every format it reads.  A
 * capture's or a state's formats come from strangers, and the fuzzers found texts that
 * crash it (NULL dereferences, a division by 0).  ana_format_unsafe() refuses a format
 * whose lines are not shaped as the kernel's (no fields then); ana_print_fmt_unsafe()
 * refuses a print fmt libtraceevent would misread (the fields stay, the events are
 * printed without it).  Each check names the finding that made it.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"

/*
 * The first REC->NAME of @format's print fmt that names none of its "field:" lines, or
 * NULL (@bad receives NAME).  The kernel writes consistent formats; a capture's may not be,
 * and libtraceevent 1.7 dereferences the missing field of such a name in
 * __print_symbolic() while it parses (found by tests/fuzz/fuzz-pipeline).
 */
static const char *unknown_field_ref(const char *format, char *bad, size_t sz)
{
	const char *pf = strstr(format, "\nprint fmt:");

	for (const char *r = pf; r && (r = strstr(r, "REC->"));) {
		size_t n = 0;
		r += 5;
		while (r[n] == '_' || (r[n] >= 'a' && r[n] <= 'z') || (r[n] >= 'A' && r[n] <= 'Z') ||
		       (r[n] >= '0' && r[n] <= '9'))
			n++;
		bool found = false;
		for (const char *f = format; !found && f < pf && (f = strstr(f, "field:")) && f < pf;
		     f += 6) {
			const char *semi = strchr(f, ';'), *e = semi;
			if (!semi || semi > pf)
				break;
			if (e > f && e[-1] == ']')	/* NAME[N] */
				while (e > f && *e != '[')
					e--;
			const char *name = e - n;
			found = (size_t)(e - f) > n && !strncmp(name, r, n) &&
				(name[-1] == ' ' || name[-1] == '*' || name[-1] == ':');
		}
		if (!found) {
			snprintf(bad, sz, "%.*s", (int)n, r);
			return bad;
		}
	}
	return NULL;
}

/* "NAME:" at the start of @line: the rest, else NULL */
static const char *after(const char *line, const char *name)
{
	size_t n = strlen(name);

	return strncmp(line, name, n) ? NULL : line + n;
}

/*
 * Decimal digits at *@p into *@v (at most 9 of them, no leading 0); false when there are
 * none.  libtraceevent reads them with strtoul(, 0): "08" would be its 0 and our 8
 * (found by tests/fuzz/fuzz-format: a field of size 0 is the rest of the record to it).
 */
static bool number(const char **p, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	while (isdigit((unsigned char)**p) && *p - s < 9)
		*v = *v * 10 + (unsigned long)(*(*p)++ - '0');
	return *p > s && !isdigit((unsigned char)**p) && !(*s == '0' && *p - s > 1);
}

/*
 * One "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" line, as the kernel writes every
 * one (all 2323 formats of a 6.18 kernel): DECL of letters, digits, '_', ' ', '*' and
 * "[N]" / "[]" only.  Return: the reason it is not, or NULL.
 */
static const char *bad_field(const char *f, const char *end, char *why, size_t sz)
{
	const char *decl = f, *semi = memchr(f, ';', (size_t)(end - f)), *p, *name;
	unsigned long o, n, sg;

	if (!semi || semi == decl)
		return snprintf(why, sz, "a field line without its declaration"), why;
	for (p = decl; p < semi; p++) {
		if (*p == '[') {
			while (++p < semi && isdigit((unsigned char)*p))
				;
			if (p == semi || *p != ']')
				return snprintf(why, sz, "a field declaration with a bad [size]"), why;
		} else if (!isalnum((unsigned char)*p) && !strchr("_ *", *p)) {
			return snprintf(why, sz, "a field declaration with a character 0x%02x",
					(unsigned char)*p), why;
		}
	}
	name = semi;
	if (name[-1] == ']')
		while (name > decl && name[-1] != '[')
			name--, semi = name - 1;
	for (name = semi; name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_');)
		name--;
	if (name == semi || name == decl)
		return snprintf(why, sz, "a field declaration without a type and a name"), why;
	p = strchr(decl, ';') + 1;
	while (*p == '\t' || *p == ' ')
		p++;
	if (!(p = after(p, "offset:")) || !number(&p, &o) || *p++ != ';')
		return snprintf(why, sz, "field '%.*s' without its offset", (int)(semi - name), name), why;
	while (*p == '\t' || *p == ' ')
		p++;
	if (!(p = after(p, "size:")) || !number(&p, &n) || *p++ != ';')
		return snprintf(why, sz, "field '%.*s' without its size", (int)(semi - name), name), why;
	while (*p == '\t' || *p == ' ')
		p++;
	if ((p = after(p, "signed:")) && (!number(&p, &sg) || *p++ != ';'))
		return snprintf(why, sz, "field '%.*s' with a bad signed:", (int)(semi - name), name), why;
	if (o > (1ul << 20) || n > (1ul << 20) ||
	    (!strncmp(name, "common_", 7) && o + n > 64) ||
	    ((size_t)(semi - name) == 11 && !strncmp(name, "common_type", 11) && (o || n != 2)))
		return snprintf(why, sz, "field '%.*s' at offset %lu, size %lu", (int)(semi - name),
				name, o, n), why;
	/*
	 * The kernel's dynamic fields are u32s (offset and length).  Of a 2-byte one
	 * libtraceevent takes the length to be the record's size less the offset, unsigned:
	 * an offset past the record made it read 4 GB (found by tests/fuzz/fuzz-format).
	 */
	while (*decl == ' ')
		decl++;
	if ((!strncmp(decl, "__data_loc", 10) || !strncmp(decl, "__rel_loc", 9)) && n != 4)
		return snprintf(why, sz, "field '%.*s' dynamic with size %lu, not 4",
				(int)(semi - name), name, n), why;
	return NULL;
}

/*
 * Whether the "->" at @arrow (in a print fmt starting at @start, outside its strings)
 * follows "REC" or "(REC)", as in every kernel format: libtraceevent takes "x->y" of any
 * other x for a field it then dereferences as NULL (found by tests/fuzz/fuzz-state in a
 * state's context: "next_pid->next_comm").
 */
static bool rec_arrow(const char *start, const char *arrow)
{
	size_t n = (size_t)(arrow - start);

	if (n >= 5 && !strncmp(arrow - 5, "(REC)", 5))
		return true;
	return n >= 3 && !strncmp(arrow - 3, "REC", 3) &&
	       (n == 3 || (!isalnum((unsigned char)arrow[-4]) && arrow[-4] != '_'));
}

/*
 * Why libtraceevent must not see @format, or NULL.  Its parser trusts the text (a
 * field line cut in its declaration made it strcmp() a NULL name, found by
 * tests/fuzz/fuzz-pipeline), so a format must look as the kernel writes them: lines
 * "name:", "ID:", "format:", field lines (bad_field()) and, last, a print fmt of
 * printable ASCII (tabs and newlines in its strings) with its quotes closed, its
 * brackets balanced and "->" only after REC (rec_arrow()).  The lines are as strict as the kernel's; what the
 * fuzzers still find is in the print fmt's expressions, so that is where the checks
 * grow (each with its finding), not a grammar of the whole text.  Then it reads a record's fields where the format
 * says, without the record's size, and finds a record's format by the common_type
 * at the place the first format it parsed gave: print.c pads each record it prints
 * to the reach of the fields of the format libtraceevent will pick, which needs
 * fields within 1 MiB, common fields within the first 64 bytes and common_type the
 * kernel's (offset 0, 2 bytes).
 */
const char *ana_format_unsafe(const char *format, char *why, size_t sz)
{
	for (const char *l = format; *l;) {
		const char *end = strchr(l, '\n'), *p = l, *r;

		if (!end)
			end = l + strlen(l);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((r = after(p, "field:"))) {
			if (bad_field(r, end, why, sz))
				return why;
		} else if (after(p, "print fmt:")) {
			/* the last part: its strings may hold tabs and newlines (ext4, maple_tree) */
			bool quoted = false;
			char open[64];		/* the brackets open outside strings */
			size_t depth = 0;
			for (r = p; *r; r++) {
				if (((unsigned char)*r < 0x20 && *r != '\t' && *r != '\n') ||
				    (unsigned char)*r > 0x7e)
					return snprintf(why, sz, "a print format with a byte 0x%02x",
							(unsigned char)*r), why;
				if (quoted && *r == '\\' && r[1])
					r++;
				else if (*r == '"')
					quoted = !quoted;
				else if (!quoted && r[0] == '-' && r[1] == '>' && !rec_arrow(p, r))
					return snprintf(why, sz, "a print format with '->' after "
							"something else than REC"), why;
				else if (!quoted && *r == '\t')
					return snprintf(why, sz, "a print format with a tab outside "
							"its strings"), why;
				else if (!quoted && strchr("([{", *r)) {
					if (depth == sizeof(open))
						return snprintf(why, sz, "a print format nested over %zu "
								"deep", sizeof(open)), why;
					open[depth++] = *r;
				} else if (!quoted && strchr(")]}", *r)) {
					/* unbalanced text sent libtraceevent's parser to NULL (fuzz-state) */
					if (!depth || open[--depth] != (*r == ')' ? '(' : *r == ']' ? '[' : '{'))
						return snprintf(why, sz, "a print format with a '%c' that "
								"closes nothing open", *r), why;
				}
			}
			if (quoted)
				return snprintf(why, sz, "a print format with a string not closed"), why;
			if (depth)
				return snprintf(why, sz, "a print format with a '%c' not closed",
						open[depth - 1]), why;
			return NULL;
		} else if (p < end && !after(p, "name:") && !after(p, "ID:") && !after(p, "format:")) {
			return snprintf(why, sz, "a line that is no part of a format"), why;
		}
		l = *end ? end + 1 : end;
	}
	return NULL;
}

/* One token of a print fmt, cut as libtraceevent's tokenizer cuts them (event-parse.c). */
enum pf_kind { PF_END, PF_ITEM, PF_STR, PF_DELIM, PF_OP };

struct pf_tok {
	enum pf_kind kind;
	const char *s;
	size_t n;
	bool cut;		/* a string a tab ended */
};

/* The token at *@p (blanks skipped), and *@p past it. */
static struct pf_tok pf_next(const char **p)
{
	const char *s = *p;
	struct pf_tok t = { PF_END, s, 0, false };

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	t.s = s;
	if (!*s) {
		*p = s;
		return t;
	}
	const char *e = s + 1;
	if (isalnum((unsigned char)*s) || *s == '_') {
		t.kind = PF_ITEM;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
	} else if (*s == '"' || *s == '\'') {
		/*
		 * As libtraceevent reads one: to the closing quote, over escaped characters
		 * and newlines, but a tab (any byte not printable) ends it there, and what
		 * follows is read as code (fuzz-format: "a\t,_%lZZ" divided by 0).
		 */
		t.kind = PF_STR;
		while (*e && *e != *s) {
			if (e[0] == '\\' && e[1]) {
				e += 2;
			} else if (!isprint((unsigned char)*e++) && e[-1] != '\n') {
				t.cut = true;
				t.n = (size_t)(e - s);
				*p = e;
				return t;
			}
		}
		if (*e)
			e++;
	} else if (strchr("(),", *s)) {
		t.kind = PF_DELIM;
	} else {
		t.kind = PF_OP;
		if (s[0] == '-' && s[1] == '>')
			e++;
		else if (strchr("+|&<>-", s[0]) && s[1] == s[0])
			e += 1 + ((s[0] == '<' || s[0] == '>') && s[2] == '=');
		else if (strchr("+|&<>-!=", s[0]) && s[1] == '=')
			e++;
	}
	t.n = (size_t)(e - s);
	*p = e;
	return t;
}

static bool pf_is(struct pf_tok t, enum pf_kind k, const char *s)
{
	return t.kind == k && t.n == strlen(s) && !strncmp(t.s, s, t.n);
}

/* A binary operator libtraceevent gives a priority and reads both sides of. */
static bool pf_binary(struct pf_tok t)
{
	static const char *const ops[] = { ">>", "<<", "&", "|", "&&", "||", "-", "+", "*", "^",
					   "/", "%", "<", ">", "<=", ">=", "==", "!=" };

	for (size_t i = 0; t.kind == PF_OP && i < PP_ARRAY_SIZE(ops); i++)
		if (pf_is(t, PF_OP, ops[i]))
			return true;
	return false;
}

/* Whether @t is a number that is not 0, as C writes them ("1000L", "0x40", "64"). */
static bool pf_nonzero_number(struct pf_tok t)
{
	size_t i = 0, n = t.n;
	bool hex = n > 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X'), nonzero = false;

	if (t.kind != PF_ITEM)
		return false;
	while (n && strchr("uUlL", t.s[n - 1]))
		n--;
	for (i = hex ? 2 : 0; i < n && (hex ? isxdigit((unsigned char)t.s[i]) : isdigit((unsigned char)t.s[i])); i++)
		nonzero |= t.s[i] != '0';
	return i == n && n > (hex ? 2u : 0u) && nonzero && (hex || t.s[0] != '0');
}

/*
 * Why the print fmt's tokens at @p may divide by 0, or NULL.  libtraceevent folds
 * constants while it parses and evaluates fields when it prints, dividing by 0 either
 * way (SIGFPE).  So each '/' and '%' must divide by a number that is not 0, or by
 * sizeof(...), as the kernel's formats do ("/ 1000L", "% 64", "/ sizeof(u64)"), and
 * that divisor must end there: libtraceevent binds "a / 2 / 4" as "a / (2 / 4)", a
 * division by 0, so no '*', '/', '%' or '[' may follow it.  Found by
 * tests/fuzz/fuzz-pipeline ("R % pU": two unknown names, both 0) and fuzz-format (a
 * string divisor after a newline; a chain of divisions by 1gLx).
 */
static const char *pf_division_unsafe(const char *p, char *why, size_t sz)
{
	for (struct pf_tok t = pf_next(&p); t.kind != PF_END; t = pf_next(&p)) {
		if (!pf_is(t, PF_OP, "/") && !pf_is(t, PF_OP, "%"))
			continue;
		const char *q = p;
		struct pf_tok d = pf_next(&q);
		int open = 0;

		for (; pf_is(d, PF_DELIM, "("); d = pf_next(&q))
			open++;
		if (pf_is(d, PF_ITEM, "sizeof")) {
			const char *r = q;
			int depth = 0;
			if (!pf_is(pf_next(&r), PF_DELIM, "("))	/* a bare "sizeof" is 0 to it */
				return snprintf(why, sz, "divides by 'sizeof' without its '('"), why;
			do {
				d = pf_next(&q);
				depth += pf_is(d, PF_DELIM, "(") - pf_is(d, PF_DELIM, ")");
			} while (depth > 0 && d.kind != PF_END);
			if (d.kind == PF_END)
				break;
		} else if (!pf_nonzero_number(d)) {
			return snprintf(why, sz, "divides by '%.*s', not a number", (int)d.n, d.s), why;
		}
		for (d = pf_next(&q); open && pf_is(d, PF_DELIM, ")"); d = pf_next(&q))
			open--;
		if (open || pf_is(d, PF_OP, "*") || pf_is(d, PF_OP, "/") || pf_is(d, PF_OP, "%") ||
		    pf_is(d, PF_OP, "["))
			return snprintf(why, sz, "divides by more than a number ('%.*s' follows)",
					(int)d.n, d.s), why;
	}
	return NULL;
}

/*
 * Why libtraceevent would misread the print fmt's tokens at @p, or NULL.  When it has
 * read an index "x[i]" or a conditional "c ? a : b" and the next token is an operator
 * it has no priority for (anything but ':', the binary ones, '?', '!', '~', '++', '--'),
 * it hands that operator to a right-hand side it never made: a NULL dereference (found
 * by tests/fuzz/fuzz-state; "x[1] = 2", "c ? 1 : 2 ]", "x[1][2]", "c ? 1 : b[1]" and
 * their kin all crash 1.7).  The kernel's formats use '[', ']', '{', '}' and '->' in
 * few places; elsewhere, and every other such operator anywhere, is refused:
 *   - operators other than the binary ones, '!', '~', '?', ':', '[', ']', '{', '}', "->";
 *   - after "x[i]": only ',', ')', the end, a binary operator, '?' or ':';
 *   - a '?' inside "[...]" or "{...}";
 *   - '[' after a ':' of the same argument (it would index the conditional's b);
 *   - '{' but after ',' or '(' (the tables of __print_flags and __print_symbolic);
 *   - REC after a name (libtraceevent joins the two into one name, then meets "->");
 *   - more than 4 unary operators in a row, or 1024 operators in one argument: its
 *     parser recurses for each, and 29,000 '~' overflowed the stack (fuzz-format; the
 *     kernel has at most 2 in a row and 375 in one argument, kvm_nested_vmexit_inject).
 * Statement expressions "({ ... })" of a few kernel formats use '=' and '.': they are
 * refused too, and libtraceevent fails them anyway.
 */
static const char *pf_tokens_unsafe(const char *p, char *why, size_t sz)
{
	char open[64];			/* the '(' '[' '{' open, and whether a ':' followed at each */
	bool colon[sizeof(open) + 1] = { false };
	size_t depth = 0, unary = 0, in_arg = 0;
	struct pf_tok prev3 = { PF_END, "", 0, false }, prev2 = prev3, prev = prev3, t = pf_next(&p);

	for (; t.kind != PF_END; prev3 = prev2, prev2 = prev, prev = t, t = pf_next(&p)) {
		const char *q = p;
		struct pf_tok next = pf_next(&q);

		/* an operator where an operand is due: after the start, '(', ',' or an operator */
		if (t.kind == PF_OP && (prev.kind == PF_END || pf_is(prev, PF_DELIM, "(") ||
					pf_is(prev, PF_DELIM, ",") ||
					(prev.kind == PF_OP && !pf_is(prev, PF_OP, "]") &&
					 !pf_is(prev, PF_OP, "}")))) {
			if (++unary > 4)
				return snprintf(why, sz, "has more than 4 unary operators in a row"), why;
		} else {
			unary = 0;
		}
		if (pf_is(t, PF_DELIM, ",") && !depth)
			in_arg = 0;
		else if (t.kind == PF_OP && ++in_arg > 1024)
			return snprintf(why, sz, "has over 1024 operators in one argument"), why;

		if (t.kind == PF_OP && !pf_binary(t) && !pf_is(t, PF_OP, "!") && !pf_is(t, PF_OP, "~") &&
		    !pf_is(t, PF_OP, "?") && !pf_is(t, PF_OP, ":") && !pf_is(t, PF_OP, "[") &&
		    !pf_is(t, PF_OP, "]") && !pf_is(t, PF_OP, "{") && !pf_is(t, PF_OP, "}") &&
		    !pf_is(t, PF_OP, "->"))
			return snprintf(why, sz, "has the operator '%.*s'", (int)t.n, t.s), why;
		if (pf_is(t, PF_ITEM, "REC") && prev.kind == PF_ITEM)
			return snprintf(why, sz, "has REC after the name '%.*s'", (int)prev.n, prev.s), why;
		if (pf_is(t, PF_OP, "]") && !pf_is(prev, PF_OP, "[") && next.kind != PF_END &&
		    next.kind != PF_DELIM && !pf_binary(next) && !pf_is(next, PF_OP, "?") &&
		    !pf_is(next, PF_OP, ":"))
			return snprintf(why, sz, "has '%.*s' after an index", (int)next.n, next.s), why;
		if (pf_is(t, PF_OP, "?"))
			for (size_t i = 0; i < depth; i++)
				if (open[i] != '(')
					return snprintf(why, sz, "has a '?' inside '%c'", open[i]), why;
		if (pf_is(t, PF_OP, "[") && colon[depth])
			return snprintf(why, sz, "has a '[' after a conditional's ':'"), why;
		if (pf_is(t, PF_OP, "{") && !pf_is(prev, PF_DELIM, ",") && !pf_is(prev, PF_DELIM, "("))
			return snprintf(why, sz, "has a '{' after '%.*s'", (int)prev.n, prev.s), why;
		if (pf_is(t, PF_OP, ":"))
			colon[depth] = true;
		else if (pf_is(t, PF_DELIM, ","))
			colon[depth] = false;
		if (pf_is(t, PF_OP, "->") && !pf_is(prev, PF_ITEM, "REC") &&
		    !(pf_is(prev, PF_DELIM, ")") && pf_is(prev2, PF_ITEM, "REC") &&
		      pf_is(prev3, PF_DELIM, "(")))
			return snprintf(why, sz, "has '->' after something else than REC"), why;
		if (t.n == 1 && strchr("([{", *t.s) && t.kind != PF_STR) {
			if (depth == sizeof(open))
				return snprintf(why, sz, "nests over %zu deep", sizeof(open)), why;
			open[depth++] = *t.s;
			colon[depth] = false;
		} else if (t.n == 1 && strchr(")]}", *t.s) && t.kind != PF_STR) {
			if (!depth || open[--depth] != (*t.s == ')' ? '(' : *t.s == ']' ? '[' : '{'))
				return snprintf(why, sz, "has a '%c' that closes nothing open", *t.s), why;
		}
	}
	if (depth)
		return snprintf(why, sz, "has a '%c' not closed", open[depth - 1]), why;
	return NULL;
}

/*
 * Why the conversions of the print fmt's format string (its first string tokens, at @p)
 * would make libtraceevent write without bound, or NULL: a width or precision of more
 * than 4 digits pads each event to it, and a width taken from an argument ("%*d") to
 * whatever a field holds (found by tests/fuzz/fuzz-format: "%*s" of a field of 2^31
 * ran past libFuzzer's timeout).  The kernel's widths have at most 2 digits, and a
 * width from an argument only in "%*pbl" (a bitmap's bits); "%.*s" is bounded by its
 * string, which a NUL ends in every padded record.
 */
static const char *pf_conversions_unsafe(const char *p, char *why, size_t sz)
{
	for (struct pf_tok t = pf_next(&p); t.kind == PF_STR; t = pf_next(&p)) {
		const char *c = t.s + 1, *end = t.s + t.n - 1;

		while (c < end) {
			if (*c++ != '%')
				continue;
			if (*c == '%') {
				c++;
				continue;
			}
			const char *conv = c - 1;
			while (c < end && strchr("-+ #0", *c))
				c++;
			for (int part = 0; part < 2; part++) {
				const char *d = c;
				if (part && *c != '.')
					break;
				c += part;
				if (*c == '*' && !part && strncmp(c + 1, "pb", 2))
					return snprintf(why, sz, "has a width taken from an argument "
							"('%.*s')", (int)(c + 2 - conv), conv), why;
				if (*c == '*') {
					c++;
					continue;
				}
				while (c < end && isdigit((unsigned char)*c))
					c++;
				if (c - d - part > 4)
					return snprintf(why, sz, "has a %s of %d digits",
							part ? "precision" : "width",
							(int)(c - d - part)), why;
			}
		}
	}
	return NULL;
}

const char *ana_print_fmt_unsafe(const char *format, char *why, size_t sz, bool *kernel)
{
	const char *pf = strstr(format, "\nprint fmt:"), *p;
	char bad[64];

	*kernel = false;
	if (!pf)
		return NULL;
	/* shapes of the kernel's own that libtraceevent cannot read: a note, not a warning */
	p = pf + 11;
	for (struct pf_tok t = pf_next(&p); t.kind != PF_END; t = pf_next(&p))
		if (t.cut)
			return *kernel = true, snprintf(why, sz, "has a tab in a string, where "
							"libtraceevent ends it"), why;
	if (strstr(pf, "({"))
		*kernel = true;
	if (unknown_field_ref(format, bad, sizeof(bad)))
		return snprintf(why, sz, "names a field it does not have ('%s')", bad), why;
	if (pf_division_unsafe(pf + 11, why, sz))
		return why;
	if (pf_conversions_unsafe(pf + 11, why, sz))
		return why;
	return pf_tokens_unsafe(pf + 11, why, sz);
}
