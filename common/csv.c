/* SPDX-License-Identifier: MIT */
/*
 * csv.c - a CSV field appended to a buffer, quoted always or when needed (csv.h).
 */
#include <string.h>

#include "common/csv.h"

void pp_csv_add_quoted(struct pp_buf *b, const char *s)
{
	pp_buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			pp_buf_addch(b, '"');
		pp_buf_addch(b, *s);
	}
	pp_buf_addch(b, '"');
}

void pp_csv_add(struct pp_buf *b, const char *s)
{
	if (strpbrk(s, ",\"\n"))
		pp_csv_add_quoted(b, s);
	else
		pp_buf_adds(b, s);
}
