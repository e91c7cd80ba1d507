/* SPDX-License-Identifier: MIT */
/*
 * import/tdformat.h - a trace.dat event's tracefs "format" text, written back from
 * libtraceevent's parse of it.
 *
 * libtracecmd hands the formats a trace.dat stores to libtraceevent and keeps no copy of
 * their text; a capture's EVENT_DESC wants that text.  The fields come back exactly (type,
 * name, offset, size, sign); the print fmt is printed from its parsed argument tree, which
 * says the same thing in libtraceevent's words (every operator parenthesised).  Not here:
 * reading the file (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDFORMAT_H
#define PP_ANALYZE_IMPORT_TDFORMAT_H

#include <stdbool.h>

#include "common/buf.h"

struct tep_event;

/**
 * ana_td_format_text() - append @ev's format text, as tracefs would show it, to @out
 * @ev:  an event parsed by libtraceevent
 * @out: where the text goes
 *
 * A print fmt argument this printer cannot say (a helper function's call) leaves the print
 * fmt as an empty string: the fields stay, `trace` prints the event's fields alone.
 * Return: true when the print fmt was written whole, false when it was left empty.
 */
bool ana_td_format_text(const struct tep_event *ev, struct pp_buf *out);

#endif
