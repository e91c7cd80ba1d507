/* SPDX-License-Identifier: MIT */
/*
 * evtype.c - event types of a capture: parsed from the stored descriptions.
 *
 * A tracepoint's format text comes from the capture, never from the local
 * tracefs, and is parsed with libtraceevent; its fields are also described
 * as struct pp_field for the expression engine.  A format libtraceevent
 * cannot parse leaves the type usable without fields (a warning says so).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"
#include "common/expr.h"
#include "common/log.h"

void ana_evtype_free(struct ana_evtype *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_fields; i++)
		free((char *)t->fields[i].name);
	free(t->fields);
	free(t->name);
	free(t->sys);
	free(t->event);
	free(t->selector);
	free(t->filter);
	free((void *)t->attr);
	pp_expr_free(t->rec_filter);
	ana_fastfmt_free(ana_evtype_priv(t)->fmt);
	free(ana_evtype_priv(t)->format);
	free(ana_evtype_priv(t));
}

static void add_field(struct ana_evtype *t, const struct tep_format_field *f)
{
	struct pp_field *p;

	t->fields = pp_xrealloc(t->fields, (t->nr_fields + 1) * sizeof(*t->fields));
	p = &t->fields[t->nr_fields++];
	memset(p, 0, sizeof(*p));
	p->name = pp_xstrdup(f->name);
	p->offset = (uint32_t)f->offset;
	p->size = (uint32_t)f->size;
	p->elem_size = f->elementsize ? f->elementsize : (uint32_t)f->size;
	p->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	p->is_array = (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC);
	p->is_data_loc = f->flags & TEP_FIELD_IS_DYNAMIC;
	p->is_string = (f->flags & TEP_FIELD_IS_STRING) ||
		       ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char") &&
			p->elem_size == 1);
	p->is_pointer = f->flags & TEP_FIELD_IS_POINTER;
	if (p->is_data_loc && !p->elem_size)
		p->elem_size = 1;
}

/* Fields "Xcomm" (a char array) with a numeric "Xpid": sched_switch's prev_ and next_, "comm". */
static void find_name_pairs(struct ana_evtype_priv *x)
{
	const struct ana_evtype *t = &x->pub;

	for (size_t i = 0; i < t->nr_fields && x->nr_names < PP_ARRAY_SIZE(x->name_comm); i++) {
		const struct pp_field *c = &t->fields[i];
		size_t n = strlen(c->name);
		char pid[64];

		if (n < 4 || n >= sizeof(pid) || strcmp(c->name + n - 4, "comm") || !c->is_string)
			continue;
		snprintf(pid, sizeof(pid), "%.*spid", (int)(n - 4), c->name);
		const struct pp_field *p = ana_field_find(t, pid);
		if (p && !p->is_array && !p->is_string && p->size <= 8) {
			x->name_comm[x->nr_names] = c;
			x->name_pid[x->nr_names++] = p;
		}
	}
}

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

/*
 * Whether @format's print fmt divides by anything but a constant that is not 0: '/'
 * or '%' outside strings followed by a number, or sizeof(...), as kernel formats have
 * it ("/ 1000L", "% 64", "/ sizeof(u64)").  libtraceevent folds constants while it
 * parses and evaluates fields when it prints, dividing by 0 either way (SIGFPE, found
 * by tests/fuzz/fuzz-pipeline with "R % pU": two unknown names, both 0).
 */
static bool risky_division(const char *format)
{
	const char *p = strstr(format, "\nprint fmt:");
	bool quoted = false;

	for (p = p ? p + 11 : ""; *p && *p != '\n'; p++) {
		if (quoted && *p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		if (quoted || (*p != '/' && *p != '%'))
			continue;
		const char *r = p + 1;
		int open = 0;
		while (*r == ' ' || *r == '(')
			open += *r++ == '(';
		if (!strncmp(r, "sizeof(", 7))
			continue;
		bool hex = r[0] == '0' && (r[1] == 'x' || r[1] == 'X'), nonzero = false;
		if (!hex && !(*r >= '1' && *r <= '9'))
			return true;
		for (r += hex ? 2 : 0; isxdigit((unsigned char)*r) && (hex || isdigit((unsigned char)*r)); r++)
			nonzero |= *r != '0';
		while (*r == 'u' || *r == 'U' || *r == 'l' || *r == 'L')
			r++;
		for (; open; open--) {
			while (*r == ' ')
				r++;
			if (*r++ != ')')
				return true;
		}
		if (!nonzero)
			return true;
	}
	return false;
}

/* "NAME:" at the start of @line: the rest, else NULL */
static const char *after(const char *line, const char *name)
{
	size_t n = strlen(name);

	return strncmp(line, name, n) ? NULL : line + n;
}

/* Decimal digits at *@p into *@v (at most 9 of them); false when there are none. */
static bool number(const char **p, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	while (isdigit((unsigned char)**p) && *p - s < 9)
		*v = *v * 10 + (unsigned long)(*(*p)++ - '0');
	return *p > s && !isdigit((unsigned char)**p);
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

int ana_evtype_add(struct ana_session *s, const struct ppf_event_desc *d)
{
	struct ana_evtype *t;
	const char *colon;

	if (pp_u64map_get(&s->types, d->id))
		return 0;	/* a repeated description (rotation) */
	struct ana_evtype_priv *x = pp_xcalloc(1, sizeof(*x));
	x->flags_off = x->pc_off = -1;
	x->format = pp_xstrdup(d->format ? d->format : "");
	t = &x->pub;
	t->id = d->id;
	t->kind = d->kind;
	t->desc_flags = d->flags;
	t->name = pp_xstrdup(d->name);
	t->selector = pp_xstrdup(d->selector);
	t->filter = pp_xstrdup(d->filter);
	if (d->attr_sz) {
		void *a = pp_xmalloc(d->attr_sz);
		memcpy(a, d->attr, d->attr_sz);
		t->attr = a;
		t->attr_sz = d->attr_sz;
	}
	colon = strchr(d->name, ':');
	if (colon) {
		t->sys = pp_xstrndup(d->name, (size_t)(colon - d->name));
		t->event = pp_xstrdup(colon + 1);
	} else {
		t->event = pp_xstrdup(d->name);
	}
	char why[128];
	if (d->format && d->format[0] && t->sys && ana_format_unsafe(d->format, why, sizeof(why))) {
		pp_warn("the stored format of %s has %s: its fields are not available", d->name, why);
	} else if (d->format && d->format[0] && t->sys) {
		struct tep_event *ev = NULL;
		size_t len = strlen(d->format);
		char bad[64];
		if (unknown_field_ref(d->format, bad, sizeof(bad))) {
			pp_warn("the stored print format of %s names a field it does not have "
				"('%s'): its events are printed without it", d->name, bad);
			len = (size_t)(strstr(d->format, "\nprint fmt:") - d->format) + 1;
		} else if (risky_division(d->format)) {
			pp_warn("the stored print format of %s divides by something that may be 0: "
				"its events are printed without it", d->name);
			len = (size_t)(strstr(d->format, "\nprint fmt:") - d->format) + 1;
		}
		enum tep_errno e = tep_parse_format(s->tep, &ev, d->format, len, t->sys);
		if (e || !ev) {
			char msg[128];
			tep_strerror(s->tep, e, msg, sizeof(msg));
			pp_warn("cannot parse the stored format of %s: %s; its fields are not available",
				d->name, msg);
		} else {
			t->tep = ev;
			for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next) {
				add_field(t, f);
				if (!strcmp(f->name, "common_flags") && f->size == 1)
					x->flags_off = f->offset;
				if (!strcmp(f->name, "common_preempt_count") && f->size == 1)
					x->pc_off = f->offset;
			}
			for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
				add_field(t, f);
			find_name_pairs(x);
			if (!strcmp(d->name, "sched:sched_switch"))
				x->switch_next = ana_field_find(t, "next_pid");
		}
	}
	if ((d->flags & PPF_EVF_USER_FILTER) && d->filter[0] &&
	    ana_filter_compile(t, d->filter, &t->rec_filter))
		pp_warn("the recorded filter of %s cannot be applied: its events are not filtered",
			t->name);
	pp_u64map_put(&s->types, d->id, t);
	s->type_list = pp_xrealloc(s->type_list, (s->nr_types + 1) * sizeof(*s->type_list));
	s->type_list[s->nr_types++] = t;
	return 0;
}

const char *ana_evtype_format(const struct ana_evtype *t)
{
	return ana_evtype_priv(t)->format;
}
