/* SPDX-License-Identifier: MIT */
/*
 * protobuf.h - struct pp_pb, a minimal protocol-buffers wire-format encoder.
 *
 * Enough of the wire format (developers.google.com/protocol-buffers/docs/encoding) to
 * write Perfetto traces and pprof profiles without a protobuf library: varints (wire type
 * 0), fixed 64-bit (1), length-delimited bytes, strings, nested messages and packed
 * repeated varints (2).  Messages are written into one growable buffer; a nested message
 * (pp_pb_begin()/pp_pb_end()) reserves one length byte and shifts its body when the
 * length needs more, so small messages cost no copy.  Field numbers and types are the
 * caller's business: nothing here knows a schema.
 * Invariant: between pp_pb_begin() and its pp_pb_end() nothing else touches the buffer.
 * Not here: decoding (tests use protoc --decode_raw), groups, fixed32.
 */
#ifndef PP_COMMON_PROTOBUF_H
#define PP_COMMON_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/wire.h"

#define PP_PB_MAX_DEPTH 16

enum pp_pb_wire { PP_PB_VARINT = 0, PP_PB_FIXED64 = 1, PP_PB_LEN = 2 };

struct pp_pb {
	struct pp_buf buf;		/* the encoded bytes */
	size_t open[PP_PB_MAX_DEPTH];	/* offset of each open message's length byte */
	int depth;
};

#define PP_PB_INIT { PP_BUF_INIT, { 0 }, 0 }

/** pp_pb_release() - free the buffer. */
void pp_pb_release(struct pp_pb *pb);
/** pp_pb_reset() - empty the buffer (no message may be open), keep the memory. */
void pp_pb_reset(struct pp_pb *pb);

/** pp_pb_raw() - bytes already encoded (fields of a message encoded elsewhere). */
void pp_pb_raw(struct pp_pb *pb, const void *p, size_t sz);
/** pp_pb_raw_varint() - a bare varint, no tag (elements of a packed field). */
void pp_pb_raw_varint(struct pp_pb *pb, uint64_t v);
/** pp_pb_varint() - field @field as a varint: uint32/64, bool, enum. */
void pp_pb_varint(struct pp_pb *pb, uint32_t field, uint64_t v);
/** pp_pb_int() - int32/int64 field: negative values take 10 bytes, as the format says. */
void pp_pb_int(struct pp_pb *pb, uint32_t field, int64_t v);
/** pp_pb_sint() - sint32/sint64 field (zigzag). */
void pp_pb_sint(struct pp_pb *pb, uint32_t field, int64_t v);
/** pp_pb_fixed64() - fixed64 field (little-endian). */
void pp_pb_fixed64(struct pp_pb *pb, uint32_t field, uint64_t v);
/** pp_pb_double() - double field. */
void pp_pb_double(struct pp_pb *pb, uint32_t field, double v);
/** pp_pb_bytes() - bytes field. */
void pp_pb_bytes(struct pp_pb *pb, uint32_t field, const void *p, size_t sz);
/** pp_pb_str() - string field (@s without its NUL). */
void pp_pb_str(struct pp_pb *pb, uint32_t field, const char *s);

/**
 * pp_pb_begin() - open embedded message (or packed field) @field
 *
 * Everything written until the matching pp_pb_end() is its body.  At most
 * PP_PB_MAX_DEPTH messages may be open.
 */
void pp_pb_begin(struct pp_pb *pb, uint32_t field);
/** pp_pb_end() - close the innermost open message, writing its length. */
void pp_pb_end(struct pp_pb *pb);

#endif
