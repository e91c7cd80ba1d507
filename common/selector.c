/* SPDX-License-Identifier: MIT */
/*
 * selector.c - parse "-e" event selectors into struct pp_selector, and globs.
 *
 * A list is split on ',' outside quotes, () and {}; each event on '/' the
 * same way, so "key=(a/b)" and comm=="a/b" stay whole.  The head (before the
 * first '/') decides the kind; u*probe heads are scanned separately because
 * their binary path contains '/'.  Attribute values lose surrounding quotes or
 * one pair of parentheses that encloses the whole value, nothing else.
 * Not here: resolving globs against tracefs or a capture, compiling filters.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/selector.h"
#include "common/units.h"

enum attr_kind { ATTR_FLAG, ATTR_VALUE, ATTR_NUM, ATTR_LIST };

static const struct attr_def {
	const char *name;
	const char *alt;	/* accepted spelling, stored as @name */
	enum attr_kind kind;
} attr_defs[] = {
	{ "stack", NULL, ATTR_FLAG },
	{ "max-stack", "max_stack", ATTR_NUM },
	{ "alias", NULL, ATTR_VALUE },
	{ "key", NULL, ATTR_VALUE },
	{ "printkey", NULL, ATTR_VALUE },
	{ "role", NULL, ATTR_VALUE },
	{ "untraced", NULL, ATTR_FLAG },
	{ "trigger", NULL, ATTR_FLAG },
	{ "top-by", "top_by", ATTR_VALUE },
	{ "top-add", "top_add", ATTR_VALUE },
	{ "comm", NULL, ATTR_VALUE },
	{ "ptr", NULL, ATTR_VALUE },
	{ "size", NULL, ATTR_VALUE },
	{ "num", NULL, ATTR_VALUE },
	{ "exec", NULL, ATTR_VALUE },
	{ "cpus", NULL, ATTR_LIST },
	{ "index", NULL, ATTR_VALUE },
	{ "vm", NULL, ATTR_VALUE },
	{ "push", NULL, ATTR_VALUE },
	{ "pull", NULL, ATTR_VALUE },
};

static int set_err(struct pp_parse_error *err, int code, int pos, const char *fmt, ...)
	PP_PRINTF(4, 5);

static int set_err(struct pp_parse_error *err, int code, int pos, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

/*
 * Index of the quote that closes the one at s[q] (a backslash escapes the next
 * byte), or @end when none does before @end.
 */
static int quote_end(const char *s, int q, int end)
{
	int i;

	for (i = q + 1; i < end && s[i] != s[q]; i++)
		if (s[i] == '\\' && i + 1 < end)
			i++;
	return i;
}

/*
 * Index of the first byte of @stops in [from, end) that is outside quotes and
 * brackets, or @end.  The whole text was checked by check_balance() first.
 */
static int scan_to(const char *s, int from, int end, const char *stops)
{
	int depth = 0;

	for (int i = from; i < end; i++) {
		char c = s[i];

		if (c == '"' || c == '\'') {
			i = quote_end(s, i, end);
		} else if (c == '(' || c == '{') {
			depth++;
		} else if (c == ')' || c == '}') {
			depth--;
		} else if (!depth && strchr(stops, c)) {
			return i;
		}
	}
	return end;
}

static int check_balance(const char *s, int len, struct pp_parse_error *err)
{
	int stack[64], depth = 0;

	for (int i = 0; i < len; i++) {
		char c = s[i];

		if (c == '"' || c == '\'') {
			int q = quote_end(s, i, len);

			if (q == len)
				return set_err(err, PP_ESYNTAX, i, "unterminated quote");
			i = q;
		} else if (c == '(' || c == '{') {
			if (depth == (int)PP_ARRAY_SIZE(stack))
				return set_err(err, PP_ESYNTAX, i, "brackets nested too deeply");
			stack[depth++] = i;
		} else if (c == ')' || c == '}') {
			char open = c == ')' ? '(' : '{';

			if (!depth || s[stack[depth - 1]] != open)
				return set_err(err, PP_ESYNTAX, i, "unbalanced '%c'", c);
			depth--;
		}
	}
	if (depth)
		return set_err(err, PP_ESYNTAX, stack[depth - 1], "unclosed '%c'",
			       s[stack[depth - 1]]);
	return 0;
}

static void trim(const char *s, int *b, int *e)
{
	while (*b < *e && isspace((unsigned char)s[*b]))
		(*b)++;
	while (*e > *b && isspace((unsigned char)s[*e - 1]))
		(*e)--;
}

/* Whether s[b] is '(' and its match is s[e - 1]. */
static bool wholly_wrapped(const char *s, int b, int e)
{
	int depth = 0;

	if (e - b < 2 || s[b] != '(' || s[e - 1] != ')')
		return false;
	for (int i = b; i < e; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			i = quote_end(s, i, e);
		} else if (s[i] == '(') {
			depth++;
		} else if (s[i] == ')' && --depth == 0) {
			return i == e - 1;
		}
	}
	return false;
}

/* Whether s[b, e) is one quoted string: the quote at @b closes at e - 1. */
static bool is_quoted(const char *s, int b, int e)
{
	if (e - b < 2 || (s[b] != '"' && s[b] != '\''))
		return false;
	return quote_end(s, b, e) == e - 1;
}

static char *dup_range(const char *s, int b, int e)
{
	return pp_xstrndup(s + b, (size_t)(e - b));
}

/* A number ("16", "0x10") in s[b, e). */
static int parse_num(const char *s, int b, int e, uint64_t *v, struct pp_parse_error *err)
{
	char *tmp = dup_range(s, b, e);
	int ret = pp_parse_u64(tmp, v);

	free(tmp);
	if (ret)
		return set_err(err, PP_ESYNTAX, b, "invalid number '%.*s'", e - b, s + b);
	return 0;
}

static bool is_sym_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool is_name_char(char c)
{
	return is_sym_char(c) || c == '-' || c == '*' || c == '?' || c == '[' || c == ']' ||
	       c == '!' || c == '^';
}

static int check_chars(const char *s, int b, int e, bool (*ok)(char), const char *what,
		       struct pp_parse_error *err)
{
	if (b == e)
		return set_err(err, PP_ESYNTAX, b, "missing %s", what);
	for (int i = b; i < e; i++)
		if (!ok(s[i]))
			return set_err(err, PP_ESYNTAX, i, "invalid character '%c' in %s", s[i],
				       what);
	return 0;
}

/* "func", "func+off" or (when @allow_addr) "0xOFF", in s[b, e). */
static int parse_func(struct pp_selector *sel, const char *s, int b, int e, bool allow_addr,
		      struct pp_parse_error *err)
{
	int plus = b;
	int ret;

	if (allow_addr && b < e && isdigit((unsigned char)s[b])) {
		ret = parse_num(s, b, e, &sel->offset, err);
		if (ret)
			return ret;
		sel->has_offset_only = true;
		sel->name = dup_range(s, b, e);
		return 0;
	}
	while (plus < e && s[plus] != '+')
		plus++;
	ret = check_chars(s, b, plus, is_sym_char, "function name", err);
	if (ret)
		return ret;
	if (plus < e) {
		ret = parse_num(s, plus + 1, e, &sel->offset, err);
		if (ret)
			return ret;
	}
	sel->name = dup_range(s, b, plus);
	sel->func = pp_xstrdup(sel->name);
	return 0;
}

/*
 * The head of a u*probe starting at @p (after "uprobe:"): "BINARY:fn[+off]",
 * "BINARY:0xOFF" or "fn[+off]@\"BINARY\"".  Sets *rest to the '/' after it.
 */
static int parse_uprobe(struct pp_selector *sel, const char *s, int p, int e, int *rest,
			struct pp_parse_error *err)
{
	int sep = scan_to(s, p, e, ":@");
	int fb, fe, bb, be;
	int ret;

	if (sep == e)
		return set_err(err, PP_ESYNTAX, p,
			       "uprobe needs a binary: uprobe:BINARY:fn or uprobe:fn@\"BINARY\"");
	if (s[sep] == '@') {
		fb = p;
		fe = sep;
		bb = sep + 1;
		if (bb < e && (s[bb] == '"' || s[bb] == '\'')) {
			be = scan_to(s, bb, e, "/");
			if (be <= bb + 1 || s[be - 1] != s[bb])
				return set_err(err, PP_ESYNTAX, bb, "bad quoted binary");
			*rest = be;
			bb++;
			be--;
		} else if (bb < e && s[bb] == '/') {
			return set_err(err, PP_ESYNTAX, bb,
				       "quote the binary path: uprobe:fn@\"/path\"");
		} else {
			be = scan_to(s, bb, e, "/");
			*rest = be;
		}
	} else {
		bb = p;
		be = sep;
		if (is_quoted(s, bb, be)) {
			bb++;
			be--;
		}
		fb = sep + 1;
		fe = scan_to(s, fb, e, "/");
		*rest = fe;
	}
	if (bb >= be)
		return set_err(err, PP_ESYNTAX, bb, "missing binary");
	ret = parse_func(sel, s, fb, fe, s[sep] == ':', err);
	if (ret)
		return ret;
	sel->binary = dup_range(s, bb, be);
	return 0;
}

static const struct attr_def *attr_def_find(const char *s, int b, int e)
{
	size_t n = (size_t)(e - b);

	for (size_t i = 0; i < PP_ARRAY_SIZE(attr_defs); i++) {
		const struct attr_def *d = &attr_defs[i];

		if ((strlen(d->name) == n && !memcmp(d->name, s + b, n)) ||
		    (d->alt && strlen(d->alt) == n && !memcmp(d->alt, s + b, n)))
			return d;
	}
	return NULL;
}

static int parse_attr(struct pp_selector *sel, const char *s, int b, int e,
		      struct pp_parse_error *err)
{
	int eq = scan_to(s, b, e, "=");
	int nb = b, ne = eq, vb = eq + 1, ve = e;
	const struct attr_def *d;
	struct pp_sel_attr *a;
	uint64_t num;
	int ret;

	trim(s, &nb, &ne);
	d = attr_def_find(s, nb, ne);
	if (!d)
		return set_err(err, PP_EUNKNOWN_ATTR, nb, "unknown attribute '%.*s'", ne - nb,
			       s + nb);
	if (eq < e) {
		trim(s, &vb, &ve);
		if (is_quoted(s, vb, ve) || wholly_wrapped(s, vb, ve)) {
			vb++;
			ve--;
		}
	}
	if (d->kind == ATTR_FLAG && eq < e)
		return set_err(err, PP_ESYNTAX, eq, "attribute '%s' takes no value", d->name);
	if (d->kind != ATTR_FLAG && (eq == e || vb == ve))
		return set_err(err, PP_ESYNTAX, eq < e ? eq + 1 : nb,
			       "attribute '%s' needs a value", d->name);
	if (d->kind == ATTR_NUM) {
		ret = parse_num(s, vb, ve, &num, err);
		if (ret)
			return ret;
		if (num == 0 || num > UINT32_MAX)
			return set_err(err, PP_ESYNTAX, vb, "'%s' is out of range", d->name);
		sel->max_stack = (uint32_t)num;
		sel->stack = true;
	} else if (d->kind == ATTR_LIST) {
		char *tmp = dup_range(s, vb, ve);
		int *list = NULL;
		size_t nr = 0;

		ret = pp_parse_list(tmp, 0, &list, &nr);
		free(tmp);
		free(list);
		if (ret)
			return set_err(err, PP_ESYNTAX, vb, "invalid list '%.*s'", ve - vb,
				       s + vb);
	}
	if (!strcmp(d->name, "stack"))
		sel->stack = true;
	else if (!strcmp(d->name, "untraced"))
		sel->untraced = true;
	else if (!strcmp(d->name, "trigger"))
		sel->trigger = true;

	sel->attrs = pp_xrealloc(sel->attrs, (sel->nr_attrs + 1) * sizeof(*sel->attrs));
	a = &sel->attrs[sel->nr_attrs++];
	a->name = pp_xstrdup(d->name);
	a->value = eq < e ? dup_range(s, vb, ve) : NULL;
	a->pos = nb;
	a->value_pos = eq < e ? vb : -1;
	return 0;
}

/* The head s[b, e) of a non-uprobe event; sets kind, sys, name. */
static int parse_head(struct pp_selector *sel, const char *s, int b, int e,
		      struct pp_parse_error *err)
{
	int colon = b;
	int ret;

	while (colon < e && s[colon] != ':')
		colon++;
	if (colon == e) {
		sel->kind = PP_SEL_PLAIN;
		ret = check_chars(s, b, e, is_name_char, "event name", err);
		if (!ret)
			sel->name = dup_range(s, b, e);
		return ret;
	}
	if (colon - b == 6 && !memcmp(s + b, "kprobe", 6))
		sel->kind = PP_SEL_KPROBE;
	else if (colon - b == 9 && !memcmp(s + b, "kretprobe", 9))
		sel->kind = PP_SEL_KRETPROBE;
	else
		sel->kind = PP_SEL_TRACEPOINT;
	if (sel->kind != PP_SEL_TRACEPOINT) {
		sel->sys = dup_range(s, b, colon);
		ret = parse_func(sel, s, colon + 1, e, false, err);
		free(sel->func);	/* kprobes keep the function in @name only */
		sel->func = NULL;
		return ret;
	}
	ret = check_chars(s, b, colon, is_name_char, "event system", err);
	if (!ret)
		ret = check_chars(s, colon + 1, e, is_name_char, "event name", err);
	if (ret)
		return ret;
	sel->sys = dup_range(s, b, colon);
	sel->name = dup_range(s, colon + 1, e);
	return 0;
}

static bool has_prefix(const char *s, int b, int e, const char *pfx)
{
	size_t n = strlen(pfx);

	return (size_t)(e - b) >= n && !memcmp(s + b, pfx, n);
}

static int parse_event(struct pp_selector *sel, const char *s, int b, int e,
		       struct pp_parse_error *err)
{
	int rest = e, p, q;
	int ret;

	sel->text = dup_range(s, b, e);
	sel->pos = b;
	sel->filter_pos = -1;
	if (has_prefix(s, b, e, "uprobe:") || has_prefix(s, b, e, "uretprobe:")) {
		bool ret_probe = s[b + 1] == 'r';

		sel->kind = ret_probe ? PP_SEL_URETPROBE : PP_SEL_UPROBE;
		sel->sys = pp_xstrdup(ret_probe ? "uretprobe" : "uprobe");
		ret = parse_uprobe(sel, s, b + (ret_probe ? 10 : 7), e, &rest, err);
	} else {
		rest = scan_to(s, b, e, "/");
		ret = parse_head(sel, s, b, rest, err);
	}
	if (ret)
		return ret;
	if (rest < e && s[rest] != '/')
		return set_err(err, PP_ESYNTAX, rest, "expected '/' after the event name");
	if (rest == e)
		return 0;

	/* The first part is the filter (or an analyzer's option string). */
	p = rest + 1;
	q = scan_to(s, p, e, "/");
	{
		int fb = p, fe = q;

		trim(s, &fb, &fe);
		if (fb < fe) {
			if (sel->kind == PP_SEL_PLAIN && s[fb] == '-') {
				sel->options = dup_range(s, fb, fe);
			} else {
				sel->filter = dup_range(s, fb, fe);
				sel->filter_pos = fb;
			}
		}
	}
	while (q < e) {
		p = q + 1;
		q = scan_to(s, p, e, "/");

		int ab = p, ae = q;

		trim(s, &ab, &ae);
		if (ab == ae)
			continue;
		ret = parse_attr(sel, s, ab, ae, err);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sel->nr_attrs; i++)
		if (!strcmp(sel->attrs[i].name, "alias")) {
			sel->alias = sel->attrs[i].value;
			break;
		}
	return 0;
}

static void selector_release(struct pp_selector *s)
{
	free(s->text);
	free(s->sys);
	free(s->name);
	free(s->binary);
	free(s->func);
	free(s->filter);
	free(s->options);
	for (size_t i = 0; i < s->nr_attrs; i++) {
		free(s->attrs[i].name);
		free(s->attrs[i].value);
	}
	free(s->attrs);
}

void pp_selector_free_array(struct pp_selector *v, size_t nr)
{
	if (!v)
		return;
	for (size_t i = 0; i < nr; i++)
		selector_release(&v[i]);
	free(v);
}

int pp_selector_parse(const char *text, struct pp_selector **out, size_t *nr,
		      struct pp_parse_error *err)
{
	struct pp_selector *v = NULL;
	size_t n = 0;
	size_t tlen = strlen(text);
	int len, b = 0, e;
	int ret;

	*out = NULL;
	*nr = 0;
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	if (tlen > 1 << 20)
		return set_err(err, PP_ESYNTAX, 0, "event list too long");
	len = (int)tlen;
	ret = check_balance(text, len, err);
	if (ret)
		return ret;
	for (;;) {
		int sb, se;

		e = scan_to(text, b, len, ",");
		sb = b;
		se = e;
		trim(text, &sb, &se);
		if (sb == se) {
			ret = set_err(err, PP_ESYNTAX, sb, "empty event");
			goto err_free;
		}
		v = pp_xrealloc(v, (n + 1) * sizeof(*v));
		memset(&v[n], 0, sizeof(v[n]));
		ret = parse_event(&v[n++], text, sb, se, err);
		if (ret)
			goto err_free;
		if (e == len)
			break;
		b = e + 1;
	}
	*out = v;
	*nr = n;
	return 0;

err_free:
	pp_selector_free_array(v, n);
	return ret;
}

const char *pp_selector_attr(const struct pp_selector *s, const char *name)
{
	for (size_t i = 0; i < s->nr_attrs; i++)
		if (!strcmp(s->attrs[i].name, name))
			return s->attrs[i].value ? s->attrs[i].value : "";
	return NULL;
}

const char *pp_selector_unsupported(const struct pp_selector *s)
{
	if (pp_selector_attr(s, "push"))
		return "push= streams events to another perf-prof; pp has no live pipe between "
		       "instances: record with pp-record -o FILE and analyse FILE anywhere";
	if (pp_selector_attr(s, "pull"))
		return "pull= takes events from another perf-prof; pp has no live pipe between "
		       "instances: analyse the other side's pp-record capture (pp-analyze FILE)";
	if (pp_selector_attr(s, "vm"))
		return "vm= maps a guest's pulled events to host CPUs; pp has no pull=: "
		       "analyse the guest's pp-record capture on its own";
	return NULL;
}

static bool has_glob(const char *s)
{
	return s && strpbrk(s, "*?[");
}

bool pp_selector_is_glob(const struct pp_selector *s)
{
	if (s->kind != PP_SEL_TRACEPOINT && s->kind != PP_SEL_PLAIN)
		return false;
	return has_glob(s->sys) || has_glob(s->name);
}

/*
 * One pattern element at pat[*p] against @c; advances *p past the element.
 * A '[' without a closing ']' is an ordinary character.
 */
static bool glob_one(const char *pat, size_t plen, size_t *p, unsigned char c)
{
	size_t i = *p, j;
	bool neg = false, hit = false;

	if (pat[i] == '?') {
		*p = i + 1;
		return true;
	}
	if (pat[i] == '\\' && i + 1 < plen) {
		*p = i + 2;
		return (unsigned char)pat[i + 1] == c;
	}
	if (pat[i] != '[') {
		*p = i + 1;
		return (unsigned char)pat[i] == c;
	}
	j = i + 1;
	if (j < plen && (pat[j] == '!' || pat[j] == '^')) {
		neg = true;
		j++;
	}
	size_t first = j;

	while (j < plen && (pat[j] != ']' || j == first)) {
		unsigned char lo = (unsigned char)pat[j], hi = lo;

		if (j + 2 < plen && pat[j + 1] == '-' && pat[j + 2] != ']') {
			hi = (unsigned char)pat[j + 2];
			j += 2;
		}
		if (c >= lo && c <= hi)
			hit = true;
		j++;
	}
	if (j >= plen) {	/* no ']': a literal '[' */
		*p = i + 1;
		return c == '[';
	}
	*p = j + 1;
	return hit != neg;
}

bool pp_glob_matchn(const char *pat, size_t plen, const char *str, size_t slen)
{
	size_t p = 0, s = 0, star = SIZE_MAX, mark = 0;

	/*
	 * Greedy with one backtrack point: on a mismatch, let the last '*'
	 * swallow one more character.  Every other element matches exactly one
	 * character, so this never needs more than the last star.
	 */
	while (s < slen) {
		size_t np = p;

		if (p < plen && pat[p] == '*') {
			star = p++;
			mark = s;
			continue;
		}
		if (p < plen && glob_one(pat, plen, &np, (unsigned char)str[s])) {
			p = np;
			s++;
			continue;
		}
		if (star == SIZE_MAX)
			return false;
		p = star + 1;
		s = ++mark;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

bool pp_glob_match(const char *pat, const char *str)
{
	return pp_glob_matchn(pat, strlen(pat), str, strlen(str));
}

void pp_parse_error_print(const char *what, const char *text, const struct pp_parse_error *err)
{
	int len = (int)strlen(text), pos = err->pos, lb = 0, le;
	int prefix;

	if (pos < 0 || pos > len) {
		if (what)
			fprintf(stderr, "%s: error: %s: %s\n", pp_progname, what, err->msg);
		else
			fprintf(stderr, "%s: error: %s\n", pp_progname, err->msg);
		return;
	}
	/* Only the line holding the error, tabs shown as spaces so the caret lines up. */
	for (int i = 0; i < pos; i++)
		if (text[i] == '\n')
			lb = i + 1;
	for (le = pos; le < len && text[le] != '\n'; le++)
		;
	prefix = fprintf(stderr, "%s: error: %s%s", pp_progname, what ? what : "",
			 what ? ": " : "");
	for (int i = lb; i < le; i++)
		fputc(text[i] == '\t' ? ' ' : text[i], stderr);
	fputc('\n', stderr);
	fprintf(stderr, "%*s^ %s\n", prefix + pos - lb, "", err->msg);
}
