/* SPDX-License-Identifier: MIT */
/*
 * filter.c - checking filters by compiling them, and reading format fields.
 *
 * A format line reads "field:TYPE NAME[N];<tab>offset:O;<tab>size:S;<tab>signed:G;".
 * TYPE NAME is C: the name is the last identifier before the optional
 * array bound; "__data_loc" marks a dynamic array whose u32 holds
 * (length << 16 | offset).  Lines that do not parse are skipped.
 * Not here: evaluating filters (common/expr.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "record/perf/filter.h"

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

static uint32_t elem_size_of(const char *type, size_t len)
{
	char t[128];

	snprintf(t, sizeof(t), "%.*s", (int)len, type);
	if (strstr(t, "char") || strstr(t, "u8") || strstr(t, "s8") || strstr(t, "bool"))
		return 1;
	if (strstr(t, "short") || strstr(t, "u16") || strstr(t, "s16"))
		return 2;
	if (strstr(t, "long") || strstr(t, "u64") || strstr(t, "s64") || strchr(t, '*'))
		return 8;
	return 4;
}

/* Parse one "field:..." line into @f; the name is copied into @names. */
static bool parse_field(const char *line, const char *end, struct pp_field *f, char **name)
{
	const char *decl = line + 6, *semi = memchr(decl, ';', (size_t)(end - decl));
	const char *ne, *nb, *br = NULL, *p;
	unsigned long n = 0;

	if (!semi)
		return false;
	ne = semi;
	if (ne > decl && ne[-1] == ']') {
		br = ne - 1;
		while (br > decl && *br != '[')
			br--;
		if (*br != '[')
			return false;
		n = strtoul(br + 1, NULL, 10);
		ne = br;
	}
	while (ne > decl && isspace((unsigned char)ne[-1]))
		ne--;
	nb = ne;
	while (nb > decl && is_ident((unsigned char)nb[-1]))
		nb--;
	if (nb == ne)
		return false;
	memset(f, 0, sizeof(*f));
	*name = pp_xstrndup(nb, (size_t)(ne - nb));
	f->is_data_loc = !strncmp(decl, "__data_loc", 10);
	f->is_pointer = memchr(decl, '*', (size_t)(nb - decl)) != NULL;
	if ((p = strstr(semi, "offset:")) && p < end)
		f->offset = (uint32_t)strtoul(p + 7, NULL, 10);
	if ((p = strstr(semi, "size:")) && p < end)
		f->size = (uint32_t)strtoul(p + 5, NULL, 10);
	if ((p = strstr(semi, "signed:")) && p < end)
		f->is_signed = p[7] == '1';
	f->elem_size = f->size;
	if (br || f->is_data_loc) {
		f->is_array = !f->is_data_loc;
		f->elem_size = f->is_data_loc ? elem_size_of(decl + 10, (size_t)(nb - decl - 10))
			       : n ? f->size / (uint32_t)n : f->size;
		if (!f->elem_size)
			f->elem_size = 1;
		f->is_string = f->elem_size == 1 &&
			       strstr(decl, "char") && strstr(decl, "char") < nb;
	}
	return true;
}

int rec_format_fields(const char *format, struct pp_field **out, size_t *nr)
{
	struct pp_field *v = NULL;
	size_t n = 0;

	for (const char *p = format; p && *p;) {
		const char *eol = strchr(p, '\n'), *end = eol ? eol : p + strlen(p), *q = p;
		char *name;

		while (q < end && isspace((unsigned char)*q))
			q++;
		if (!strncmp(q, "field:", 6)) {
			struct pp_field f;

			if (parse_field(q, end, &f, &name)) {
				v = pp_xrealloc(v, (n + 1) * sizeof(*v));
				f.name = name;
				v[n++] = f;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	*out = v;
	*nr = n;
	return 0;
}

void rec_format_fields_free(struct pp_field *fields, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free((char *)fields[i].name);
	free(fields);
}

int rec_filter_check(const char *filter, const char *format, char *msg, size_t msg_sz)
{
	struct pp_parse_error err = { .pos = -1 };
	struct pp_expr_env env = { 0 };
	struct pp_field *fields = NULL;
	struct pp_expr *e = NULL;
	size_t nr = 0;
	int rc;

	if (format)
		rec_format_fields(format, &fields, &nr);
	env.fields = fields;
	env.nr_fields = nr;
	rc = pp_filter_compile(filter, &env, &e, &err);
	pp_expr_free(e);
	rec_format_fields_free(fields, nr);
	if (rc == PP_ENOTSUP || (rc == PP_EUNKNOWN_FIELD && !format))
		return 0;	/* the kernel's own syntax, or fields we cannot know */
	if (rc) {
		if (err.pos >= 0)
			snprintf(msg, msg_sz, "bad filter '%s' at column %d: %s", filter,
				 err.pos + 1, err.msg);
		else
			snprintf(msg, msg_sz, "bad filter '%s': %s", filter, err.msg);
	}
	return rc;
}
