/* SPDX-License-Identifier: MIT */
/*
 * protobuf.c - protocol-buffers wire-format encoder; see protobuf.h.
 */
#include <string.h>

#include "common/protobuf.h"

void pp_pb_release(struct pp_pb *pb)
{
	pp_buf_release(&pb->buf);
	pb->depth = 0;
}

void pp_pb_reset(struct pp_pb *pb)
{
	PP_BUG_ON(pb->depth);
	pp_buf_reset(&pb->buf);
}

static inline void put_varint(struct pp_buf *b, uint64_t v)
{
	unsigned char *p;

	pp_buf_grow(b, 10);
	p = (unsigned char *)b->data + b->len;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->len = (size_t)((char *)p - b->data);
	b->data[b->len] = '\0';
}

static inline void put_tag(struct pp_buf *b, uint32_t field, enum pp_pb_wire w)
{
	put_varint(b, ((uint64_t)field << 3) | w);
}

void pp_pb_raw(struct pp_pb *pb, const void *p, size_t sz)
{
	pp_buf_add(&pb->buf, p, sz);
}

void pp_pb_raw_varint(struct pp_pb *pb, uint64_t v)
{
	put_varint(&pb->buf, v);
}

void pp_pb_varint(struct pp_pb *pb, uint32_t field, uint64_t v)
{
	put_tag(&pb->buf, field, PP_PB_VARINT);
	put_varint(&pb->buf, v);
}

void pp_pb_int(struct pp_pb *pb, uint32_t field, int64_t v)
{
	pp_pb_varint(pb, field, (uint64_t)v);
}

void pp_pb_sint(struct pp_pb *pb, uint32_t field, int64_t v)
{
	pp_pb_varint(pb, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pp_pb_fixed64(struct pp_pb *pb, uint32_t field, uint64_t v)
{
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put_tag(&pb->buf, field, PP_PB_FIXED64);
	pp_buf_add(&pb->buf, le, 8);
}

void pp_pb_double(struct pp_pb *pb, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	pp_pb_fixed64(pb, field, u);
}

void pp_pb_bytes(struct pp_pb *pb, uint32_t field, const void *p, size_t sz)
{
	put_tag(&pb->buf, field, PP_PB_LEN);
	put_varint(&pb->buf, sz);
	pp_buf_add(&pb->buf, p, sz);
}

void pp_pb_str(struct pp_pb *pb, uint32_t field, const char *s)
{
	pp_pb_bytes(pb, field, s, strlen(s));
}

void pp_pb_begin(struct pp_pb *pb, uint32_t field)
{
	PP_BUG_ON(pb->depth >= PP_PB_MAX_DEPTH);
	put_tag(&pb->buf, field, PP_PB_LEN);
	pb->open[pb->depth++] = pb->buf.len;
	pp_buf_addch(&pb->buf, 0);	/* the length, if it fits in one byte */
}

void pp_pb_end(struct pp_pb *pb)
{
	struct pp_buf *b = &pb->buf;
	size_t at, len, extra;

	PP_BUG_ON(pb->depth <= 0);
	at = pb->open[--pb->depth];
	len = b->len - at - 1;
	extra = pp_wire_varint_len(len) - 1;
	if (extra) {
		pp_buf_grow(b, extra);
		memmove(b->data + at + 1 + extra, b->data + at + 1, len);
		b->len += extra;
		b->data[b->len] = '\0';
	}
	for (size_t i = 0; i <= extra; i++) {
		b->data[at + i] = (char)((len & 0x7f) | (i < extra ? 0x80 : 0));
		len >>= 7;
	}
}
