/* SPDX-License-Identifier: MIT */
/*
 * wire.h - a small binary encoding for data that leaves the process and comes
 * back from elsewhere (analyzer state files, docs/state-format.md).
 *
 * Writing appends to a struct pp_buf: little-endian fixed-size integers,
 * varints (unsigned LEB128, at most 10 bytes), strings (varint length, the
 * bytes, one NUL: the capture format's), and histograms (pp_wire_put_hist()).
 * Reading goes through a struct pp_wire over borrowed bytes and treats them
 * as hostile: every length and count is checked against what remains before
 * it is used, and the first error sticks - later reads return 0, "" or NULL,
 * so a decoder reads a whole structure and checks pp_wire_ok() once.
 * Not here: the layout of any particular file (analyze/state/).
 */
#ifndef PP_COMMON_WIRE_H
#define PP_COMMON_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct pp_hist;

/* --- writing --------------------------------------------------------------- */

/** pp_wire_put_u8() - one byte. */
void pp_wire_put_u8(struct pp_buf *b, uint8_t v);
/** pp_wire_put_le32() - four bytes, little-endian. */
void pp_wire_put_le32(struct pp_buf *b, uint32_t v);
/** pp_wire_put_le64() - eight bytes, little-endian. */
void pp_wire_put_le64(struct pp_buf *b, uint64_t v);
/** pp_wire_put_varint() - unsigned LEB128, 1 to 10 bytes. */
void pp_wire_put_varint(struct pp_buf *b, uint64_t v);
/**
 * pp_wire_varint_len() - bytes of @v as an unsigned LEB128 varint (1..10): the one length
 * function of every varint the project writes (states, captures, protobuf)
 */
static inline unsigned pp_wire_varint_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}
/** pp_wire_put_bytes() - varint @n, then @n bytes. */
void pp_wire_put_bytes(struct pp_buf *b, const void *p, size_t n);
/** pp_wire_put_str() - varint length, the bytes of @s, one NUL (NULL writes ""). */
void pp_wire_put_str(struct pp_buf *b, const char *s);
/**
 * pp_wire_put_hist() - a struct pp_hist, exactly (docs/state-format.md "Histograms"):
 * count, min, max, the 128-bit sum as two varints (low, high), then the number of
 * non-empty buckets and, in ascending order, each one's index gap and count
 */
void pp_wire_put_hist(struct pp_buf *b, const struct pp_hist *h);

/* --- reading --------------------------------------------------------------- */

struct pp_wire {
	const uint8_t *p, *end;		/* what is left, borrowed */
	int err;			/* 0, or the first error (negative PP_E* code) */
	char msg[160];			/* what was wrong, for the first error */
	/*
	 * Histogram bucket groups (1 KiB each) pp_wire_hist() may still allocate: a
	 * group costs 2 bytes of input, so without a budget a hostile file would get
	 * 500 times its size in memory.  PP_WIRE_HIST_GROUPS by default.
	 */
	size_t hist_groups_left;
};

#define PP_WIRE_HIST_GROUPS (256u * 1024)	/* 256 MiB of buckets */

/** pp_wire_init() - read the @len bytes at @data (borrowed for the reader's life). */
void pp_wire_init(struct pp_wire *r, const void *data, size_t len);

/** pp_wire_ok() - no error so far. */
static inline bool pp_wire_ok(const struct pp_wire *r)
{
	return r->err == 0;
}

/** pp_wire_left() - bytes left (0 after an error). */
static inline size_t pp_wire_left(const struct pp_wire *r)
{
	return r->err ? 0 : (size_t)(r->end - r->p);
}

/**
 * pp_wire_fail() - record an error found by the caller (a value out of range);
 * the first error wins
 * Return: @err.
 */
int pp_wire_fail(struct pp_wire *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** pp_wire_u8() / _le32() / _le64() / _varint() - one value, 0 after an error. */
uint8_t pp_wire_u8(struct pp_wire *r);
uint32_t pp_wire_le32(struct pp_wire *r);
uint64_t pp_wire_le64(struct pp_wire *r);
uint64_t pp_wire_varint(struct pp_wire *r);

/**
 * pp_wire_u32() - a varint that must fit in 32 bits (else an error naming @what)
 */
uint32_t pp_wire_u32(struct pp_wire *r, const char *what);

/**
 * pp_wire_count() - a varint count of items each at least @min_sz bytes long, checked
 * against what is left and against @max (naming @what when it is too large)
 * Return: the count, 0 after an error.
 */
size_t pp_wire_count(struct pp_wire *r, size_t min_sz, size_t max, const char *what);

/**
 * pp_wire_bytes() - varint n, then n bytes
 * Return: the bytes, borrowed from the reader's buffer (NULL after an error, or for 0
 * bytes); *@n set (0 after an error).
 */
const uint8_t *pp_wire_bytes(struct pp_wire *r, size_t *n);

/**
 * pp_wire_str() - a string: varint n, n bytes without a NUL, then the NUL
 * Return: the string, borrowed from the reader's buffer ("" after an error).
 */
const char *pp_wire_str(struct pp_wire *r);

/**
 * pp_wire_skip() - step over @n bytes. Return: the bytes skipped, borrowed (NULL after an error).
 */
const uint8_t *pp_wire_skip(struct pp_wire *r, size_t n);

/**
 * pp_wire_hist() - a histogram written by pp_wire_put_hist(), into @h (an initialised,
 * empty histogram), checked: bucket indexes ascending and in range, counts adding up
 * to the count, min and max inside the first and last non-empty buckets, the sum
 * between count * min and count * max
 * Return: 0 or the reader's error (then @h holds what was read so far; release it).
 */
int pp_wire_hist(struct pp_wire *r, struct pp_hist *h);

#endif
