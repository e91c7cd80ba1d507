/* SPDX-License-Identifier: MIT */
/*
 * tp-format.h - text of tracefs event formats for the test programs that write their own.
 */
#ifndef PP_TESTS_TOOLS_TP_FORMAT_H
#define PP_TESTS_TOOLS_TP_FORMAT_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

/*
 * TP_COMMON_FIELDS - the four common_* field lines that open every tracepoint's "format:"
 * section, as the kernel prints them (the blank line after them is the caller's).
 */
#define TP_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"


/**
 * tp_field_name() - the name a format's field declaration gives
 * @decl: the declaration after "field:" ("TYPE NAME[N]")
 * @semi: the ';' that ends it
 * @name: where the name goes: the last identifier before @semi once a trailing [N] is dropped
 * @size: the size of @name
 *
 * Return: true when the field is an array (its declaration ends in "[N]").
 */
static inline bool tp_field_name(const char *decl, const char *semi, char *name, size_t size)
{
	const char *end = semi, *start;
	bool array = false;

	if (end > decl && end[-1] == ']') {
		array = true;
		while (end > decl && *end != '[')
			end--;
	}
	start = end;
	while (start > decl && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
		start--;
	snprintf(name, size, "%.*s", (int)(end - start), start);
	return array;
}

/**
 * tp_format_read() - the ID and the field lines of a format text
 * @text: the text of a tracefs "format" file
 * @id: set from its "ID:" line
 * @field: called with each "field:..." line (leading blanks dropped, NUL-terminated)
 * @ctx: passed to @field
 */
static inline void tp_format_read(const char *text, uint32_t *id,
				  void (*field)(void *ctx, const char *line), void *ctx)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = pp_xstrndup(p, len), *s = line;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "ID:", 3))
			*id = (uint32_t)strtoul(s + 3, NULL, 10);
		else if (!strncmp(s, "field:", 6))
			field(ctx, s);
		free(line);
		p += len + (nl ? 1 : 0);
	}
}

#endif
