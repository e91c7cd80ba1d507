/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small JSON reader: text in, a tree of values out.
 *
 * For reading back what pp itself prints (`--format json` reports, which
 * `pp-analyze diff` compares), and any other JSON of modest size: the whole
 * text is parsed at once into heap nodes.  Strict RFC 8259: one value,
 * surrounded by white space; no comments, no trailing commas, no NaN; strings
 * are decoded (\uXXXX and surrogate pairs to UTF-8; \u0000 is refused, a
 * string here is a C string).  Nesting deeper than PP_JSON_MAX_DEPTH is an
 * error, so hostile input cannot overflow the stack.  Numbers keep their
 * text and a double.  Object members keep their order; duplicates are kept.
 * Not here: writing JSON (buf.h pp_buf_add_json_str, table.h).
 */
#ifndef PP_COMMON_JSON_H
#define PP_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define PP_JSON_MAX_DEPTH 256

enum pp_json_type { PP_JSON_NULL, PP_JSON_BOOL, PP_JSON_NUM, PP_JSON_STR, PP_JSON_ARR, PP_JSON_OBJ };

struct pp_json {
	enum pp_json_type type;
	bool b;			/* PP_JSON_BOOL */
	double num;		/* PP_JSON_NUM */
	char *str;		/* PP_JSON_STR: the decoded string; PP_JSON_NUM: its text */
	struct pp_json **v;	/* PP_JSON_ARR, PP_JSON_OBJ: the elements or member values */
	char **keys;		/* PP_JSON_OBJ: the member names, same order */
	size_t nr;
};

/**
 * pp_json_parse() - parse one JSON value from @text[0..@len)
 * @end: when not NULL, the parse stops after the first value and *@end is set past
 *       it and the white space after it (for a stream of values, one per line);
 *       when NULL, anything but white space after the value is an error
 * @err: "offset N: what is wrong", on failure
 * Return: 0 and the tree in *@out (the caller's: pp_json_free()), or PP_ESYNTAX
 * (PP_ERANGE for nesting too deep).
 */
int pp_json_parse(const char *text, size_t len, size_t *end, struct pp_json **out, char *err,
		  size_t errsz);

/** pp_json_free() - free a tree (NULL is fine). */
void pp_json_free(struct pp_json *j);

/** pp_json_get() - the value of member @key of object @j, or NULL. Return: borrowed. */
const struct pp_json *pp_json_get(const struct pp_json *j, const char *key);

/** pp_json_is_scalar() - a number, string, boolean or null. */
static inline bool pp_json_is_scalar(const struct pp_json *j)
{
	return j->type != PP_JSON_ARR && j->type != PP_JSON_OBJ;
}

#endif
