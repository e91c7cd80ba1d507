/* SPDX-License-Identifier: MIT */
/*
 * filter.h - a syntax and field-name check of event filters before use.
 *
 * The kernel's answer to a bad filter is a bare EINVAL, and pp-record must
 * tell a malformed filter (refuse, exit 2) from a well-formed one the kernel
 * cannot run (record unfiltered, let the analyzer filter).  The check accepts
 * the union of the kernel filter grammar and the expression language (casts,
 * calls, arithmetic, ?:) and knows the fields from the tracefs format text.
 * Not here: evaluating filters (common/ expression engine, pp-analyze).
 */
#ifndef PP_RECORD_FILTER_H
#define PP_RECORD_FILTER_H

#include <stddef.h>

/**
 * rec_filter_check() - is @filter well formed, and does it name only known fields?
 * @filter: the filter text
 * @format: the tracefs format text of the event, or NULL to skip field names
 * @msg: receives a one-line reason on failure
 * @msg_sz: its size
 *
 * Return: 0, PP_ESYNTAX or PP_EUNKNOWN_FIELD.
 */
int rec_filter_check(const char *filter, const char *format, char *msg, size_t msg_sz);

/**
 * rec_format_has_field() - whether tracefs format text @format declares field @name
 */
int rec_format_has_field(const char *format, const char *name, size_t len);

#endif
