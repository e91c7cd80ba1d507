/* SPDX-License-Identifier: MIT */
/*
 * buf.h - struct pp_buf, a growable byte buffer (git's strbuf shape).
 *
 * Invariants: data is NULL only while alloc == 0; when data is non-NULL,
 * data[len] == '\0', so a buffer is always usable as a C string.  The buffer
 * is passed by pointer and grown in place: no API returns a moved pointer.
 * Allocation failure is fatal (pp_xrealloc); format/ uses its own buffers.
 */
#ifndef PP_COMMON_BUF_H
#define PP_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "common/log.h"

struct pp_buf {
	char *data;
	size_t len;
	size_t alloc;
};

#define PP_BUF_INIT { NULL, 0, 0 }

/** pp_buf_release() - free the storage and reset to empty. */
void pp_buf_release(struct pp_buf *b);
/** pp_buf_grow() - make room for @extra more bytes. */
void pp_buf_grow(struct pp_buf *b, size_t extra);
/** pp_buf_add() - append @sz bytes. */
void pp_buf_add(struct pp_buf *b, const void *p, size_t sz);
/** pp_buf_adds() - append a C string. */
void pp_buf_adds(struct pp_buf *b, const char *s);
/** pp_buf_addch() - append one byte. */
void pp_buf_addch(struct pp_buf *b, int c);
/** pp_buf_addf() - append printf-formatted text. */
void pp_buf_addf(struct pp_buf *b, const char *fmt, ...) PP_PRINTF(2, 3);
/** pp_buf_reset() - set the length to zero, keep the storage. */
static inline void pp_buf_reset(struct pp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}
/** pp_buf_str() - the contents as a C string ("" when empty); borrowed. */
static inline const char *pp_buf_str(const struct pp_buf *b)
{
	return b->data ? b->data : "";
}
/** pp_buf_detach() - hand the storage to the caller (never NULL); the buffer is reset. */
char *pp_buf_detach(struct pp_buf *b);
/**
 * pp_buf_add_json_str() - append @s as a JSON string literal, with quotes
 *
 * Valid UTF-8 passes through; control characters (C0, DEL and the C1 controls
 * U+0080..U+009F) and bytes that are not UTF-8 (a comm is any 15 bytes) become
 * \u00XX escapes, so the output always parses and never holds a raw control.
 */
void pp_buf_add_json_str(struct pp_buf *b, const char *s);
/** pp_utf8_seq_len() - length of the valid UTF-8 sequence (2-4 bytes) at @p, of @n; 0 if none. */
size_t pp_utf8_seq_len(const unsigned char *p, size_t n);
/**
 * pp_str_copy() - copy the string at [@s, @end) up to its NUL into @dst, NUL-terminated
 * @dst_sz: the size of @dst, at least 1; a longer string is cut to @dst_sz - 1 bytes
 *
 * For a string field of a record: it may lack its NUL and end at @end.
 * Return: @dst.
 */
const char *pp_str_copy(char *dst, size_t dst_sz, const char *s, const char *end);

#endif
