/* SPDX-License-Identifier: MIT */
/*
 * argv.c - shell-style word splitting and quoting; see argv.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"

void pp_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int pp_argv_split(const char *s, char ***out, int *nr)
{
	struct pp_buf w = PP_BUF_INIT;
	char **v = NULL;
	int n = 0;
	bool in_word = false;

	for (const char *p = s;; p++) {
		char c = *p;
		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (in_word) {
				v = pp_xrealloc(v, (size_t)(n + 2) * sizeof(*v));
				v[n++] = pp_buf_detach(&w);
				v[n] = NULL;
				in_word = false;
			}
			if (c == '\0')
				break;
			continue;
		}
		in_word = true;
		if (c == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				goto bad;
			pp_buf_add(&w, p + 1, (size_t)(e - p - 1));
			pp_buf_grow(&w, 0);	/* an empty '' still makes a word */
			p = e;
		} else if (c == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				pp_buf_addch(&w, *p);
			}
			if (!*p)
				goto bad;
			pp_buf_grow(&w, 0);
		} else if (c == '\\') {
			if (!p[1])
				goto bad;
			pp_buf_addch(&w, *++p);
		} else {
			pp_buf_addch(&w, c);
		}
	}
	if (!v)
		v = pp_xcalloc(1, sizeof(*v));
	*out = v;
	*nr = n;
	return 0;
bad:
	pp_buf_release(&w);
	pp_argv_free(v);
	return PP_ESYNTAX;
}

void pp_argv_squote(struct pp_buf *b, const char *s)
{
	pp_buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			pp_buf_adds(b, "'\\''");
		else
			pp_buf_addch(b, *s);
	}
	pp_buf_addch(b, '\'');
}

void pp_argv_join(struct pp_buf *b, int nr, const char *const *v)
{
	for (int i = 0; i < nr; i++) {
		const char *s = v[i];
		if (i)
			pp_buf_addch(b, ' ');
		if (*s && !strpbrk(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!"))
			pp_buf_adds(b, s);
		else
			pp_argv_squote(b, s);
	}
}
