/* SPDX-License-Identifier: MIT */
/*
 * filter.c - generated filter text: comm lists and pid lists (perf-prof's "Generated filters").
 *
 * The text is kernel trace-event filter syntax, which pp_filter_compile()
 * also accepts, so pp-record can hand it to the kernel and pp-analyze can
 * apply it offline.  Compiling filters is in expr-parse.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/expr.h"
#include "common/log.h"
#include "common/options.h"

void pp_filter_from_comms(struct pp_buf *out, const char *field, const char *const *comms,
			  size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const char *c = comms[i];

		pp_buf_addf(out, "%s%s %s \"", i ? " || " : "", field,
			    strpbrk(c, "*?[") ? "~" : "==");
		for (; *c; c++) {
			if (*c == '"' || *c == '\\')
				pp_buf_addch(out, '\\');
			pp_buf_addch(out, *c);
		}
		pp_buf_addch(out, '"');
	}
}

void pp_filter_from_comm_list(struct pp_buf *out, const char *field, const char *list)
{
	char *copy = pp_xstrdup(list), *save = NULL;
	struct pp_strlist v = { 0 };

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		pp_strlist_push(&v, t);
	pp_filter_from_comms(out, field, v.v, v.nr);
	pp_strlist_release(&v);
	free(copy);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void pp_filter_from_pids(struct pp_buf *out, const char *field, const int *pids, size_t nr)
{
	int *v;
	size_t i = 0, n = 0;

	if (!nr)
		return;
	v = pp_xmalloc(nr * sizeof(*v));
	memcpy(v, pids, nr * sizeof(*v));
	qsort(v, nr, sizeof(*v), cmp_int);
	while (i < nr) {
		size_t j = i;

		/* The run v[i..j]: consecutive values, duplicates included. */
		while (j + 1 < nr && (v[j + 1] == v[j] || (long)v[j + 1] == (long)v[j] + 1))
			j++;
		if (n++)
			pp_buf_adds(out, " || ");
		if (v[j] == v[i])
			pp_buf_addf(out, "%s==%d", field, v[i]);
		else
			pp_buf_addf(out, "(%s>=%d&&%s<=%d)", field, v[i], field, v[j]);
		i = j + 1;
	}
	free(v);
}
