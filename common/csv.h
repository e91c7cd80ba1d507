/* SPDX-License-Identifier: MIT */
/*
 * csv.h - one CSV field (RFC 4180) appended to a line being built: inside
 * double quotes, a double quote doubled.
 *
 * Two callers' rules, both kept: a field quoted always (trace's text columns),
 * and a field quoted only when it holds a comma, a double quote or a newline
 * (hrtimer's event names, bare when they can be).
 * Not here: the table printer's own CSV (table.c, which also quotes a CR), the
 * sql analyzer's (which cleans up bytes that are not UTF-8 too).
 */
#ifndef PP_COMMON_CSV_H
#define PP_COMMON_CSV_H

#include "common/buf.h"

/** pp_csv_add_quoted() - @s as a quoted CSV field, appended to @b. */
void pp_csv_add_quoted(struct pp_buf *b, const char *s);

/** pp_csv_add() - @s as a CSV field, quoted only when it holds ',', '"' or '\n', appended to @b. */
void pp_csv_add(struct pp_buf *b, const char *s);

#endif
