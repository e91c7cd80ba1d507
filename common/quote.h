/* SPDX-License-Identifier: MIT */
/*
 * quote.h - text from a capture made safe for a terminal (git's quote.c, ls -b).
 *
 * A capture comes from someone else's machine: a comm, a path, a command
 * line, a tracepoint string or a symbol name may hold escape sequences (ESC,
 * an OSC title, a clear-screen), other C0 or C1 controls, DEL, or bytes that
 * are not UTF-8.  Text output shows each such byte as "\xHH" (tab, newline
 * and carriage return inside a field as "\t" "\n" "\r"); valid UTF-8 other
 * than the C1 controls U+0080..U+009F passes unchanged, and so does
 * everything printable in ASCII (a backslash too: the goal is a safe
 * terminal, not a reversible encoding).
 *
 * Two rules: PP_QUOTE_FIELD for one value inside a line (tab and newline
 * escaped too, so a record stays one line and columns stay columns), and
 * PP_QUOTE_TEXT for a whole report (tab and newline kept: they are the
 * report's own layout).  pp_quote_fopen() applies the text rule to
 * everything written to a stream, the net under every report
 * (analyze/output.c).  Not here: JSON and CSV escaping (buf.c, table.c),
 * which keep the data exact in their own syntax.
 */
#ifndef PP_COMMON_QUOTE_H
#define PP_COMMON_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/buf.h"

enum pp_quote_rule {
	PP_QUOTE_FIELD,		/* one value: every control byte escaped, \t \n \r by name */
	PP_QUOTE_TEXT,		/* a whole text: tab and newline pass, the rest as FIELD */
};

/**
 * pp_quote_safe_len() - how many leading bytes of @s (of @n) need no escaping
 * Return: @n when all of @s can be written as is.
 */
size_t pp_quote_safe_len(const char *s, size_t n, enum pp_quote_rule rule);

/** pp_quote_needed() - whether C string @s holds a byte PP_QUOTE_FIELD escapes. */
bool pp_quote_needed(const char *s);

/**
 * pp_buf_add_quoted() - append @n bytes of @s with unsafe bytes escaped by @rule
 *
 * A sequence cut at the end of @s (the last bytes of a valid UTF-8 start) is
 * escaped like any other byte that is not UTF-8.
 */
void pp_buf_add_quoted(struct pp_buf *b, const char *s, size_t n, enum pp_quote_rule rule);

/**
 * pp_quote_str() - C string @s ready for a text field
 * @scratch: where an escaped copy is built (reset first) when one is needed
 * Return: @s itself when nothing needs escaping, else @scratch's text; borrowed
 * until @scratch changes.
 */
const char *pp_quote_str(struct pp_buf *scratch, const char *s);

/** pp_quote_width() - the width of @s once quoted as a field (its byte count). */
size_t pp_quote_width(const char *s);

/**
 * pp_quote_fopen() - a stream that writes to @under with PP_QUOTE_TEXT applied
 * @under: the real stream (stdout, a report file); not closed by fclose()
 *
 * Unbuffered: each write reaches @under at once, so output through it and
 * output written to @under directly keep their order.  A UTF-8 sequence split
 * between two writes is held back until it is whole (or shown escaped once it
 * cannot be).  fclose() writes what is held back and flushes @under.
 * Return: the new stream (the caller fcloses it), or NULL (errno set).
 */
FILE *pp_quote_fopen(FILE *under);

#endif
