/* SPDX-License-Identifier: MIT */
/*
 * filter.h - event filters checked before use, and tracefs format fields.
 *
 * The kernel's answer to a bad filter is a bare EINVAL, and pp-record must
 * tell a malformed filter (refuse it, exit 2) from a well-formed one the
 * kernel cannot run (record unfiltered, let the analyzer filter).  So a
 * filter is first compiled by the shared filter compiler (common/expr.h) -
 * the very one pp-analyze applies in user space - against the event's
 * fields, taken from its tracefs format text.
 * Not here: evaluating filters.
 */
#ifndef PP_RECORD_FILTER_H
#define PP_RECORD_FILTER_H

#include <stddef.h>

#include "common/expr.h"

/**
 * rec_format_fields() - the fields declared by tracefs format text
 * @format: the text of events/SYS/NAME/format
 * @out: receives a malloc'ed array; names point into a copy owned by it
 * @nr: receives its length
 *
 * Return: 0 (an empty array when there are none); free with rec_format_fields_free().
 */
int rec_format_fields(const char *format, struct pp_field **out, size_t *nr);

/** rec_format_fields_free() - free what rec_format_fields() returned. */
void rec_format_fields_free(struct pp_field *fields, size_t nr);

/**
 * rec_filter_check() - is @filter well formed for an event with @format?
 * @filter: the filter text
 * @format: the tracefs format text, or NULL (fields then unknown: syntax only)
 * @msg: receives a one-line reason on failure
 * @msg_sz: its size
 *
 * Filters the shared compiler does not support but the kernel may
 * (field.function, field.ustring) pass: the kernel decides.
 * Return: 0, PP_ESYNTAX, PP_EUNKNOWN_FIELD, PP_ETYPE or PP_ERANGE.
 */
int rec_filter_check(const char *filter, const char *format, char *msg, size_t msg_sz);

#endif
