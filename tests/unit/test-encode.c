/* SPDX-License-Identifier: MIT */
/*
 * test-encode.c - the encoders behind the exports: pp_pb (protobuf wire format) against
 * hand-computed bytes from the encoding spec, and pp_intern (dense numbering of keys).
 */
#include <string.h>

#include "common/intern.h"
#include "common/protobuf.h"
#include "tests/unit/unit.h"

static bool bytes_eq(const struct pp_pb *pb, const void *want, size_t n)
{
	return pb->buf.len == n && !memcmp(pb->buf.data, want, n);
}

static void test_pb__scalars(void)
{
	struct pp_pb pb = PP_PB_INIT;

	/* the spec's example: field 1 = 150 is 08 96 01 */
	pp_pb_varint(&pb, 1, 150);
	CU_ASSERT(bytes_eq(&pb, "\x08\x96\x01", 3));
	pp_pb_reset(&pb);
	/* a negative int64 takes ten bytes */
	pp_pb_int(&pb, 2, -1);
	CU_ASSERT(bytes_eq(&pb, "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
	pp_pb_reset(&pb);
	/* zigzag: -1 -> 1, 1 -> 2, -2 -> 3 */
	pp_pb_sint(&pb, 1, -1);
	pp_pb_sint(&pb, 1, 1);
	pp_pb_sint(&pb, 1, -2);
	CU_ASSERT(bytes_eq(&pb, "\x08\x01\x08\x02\x08\x03", 6));
	pp_pb_reset(&pb);
	/* field 2 = "testing" is 12 07 74 65 73 74 69 6e 67 */
	pp_pb_str(&pb, 2, "testing");
	CU_ASSERT(bytes_eq(&pb, "\x12\x07testing", 9));
	pp_pb_reset(&pb);
	pp_pb_fixed64(&pb, 1, 0x0102030405060708ull);
	CU_ASSERT(bytes_eq(&pb, "\x09\x08\x07\x06\x05\x04\x03\x02\x01", 9));
	pp_pb_reset(&pb);
	/* a large field number needs a multi-byte tag: 87 << 3 = 696 = b8 05 */
	pp_pb_varint(&pb, 87, 1);
	CU_ASSERT(bytes_eq(&pb, "\xb8\x05\x01", 3));
	CU_ASSERT_EQUAL(pp_wire_varint_len(0), 1);
	CU_ASSERT_EQUAL(pp_wire_varint_len(127), 1);
	CU_ASSERT_EQUAL(pp_wire_varint_len(128), 2);
	CU_ASSERT_EQUAL(pp_wire_varint_len(UINT64_MAX), 10);
	pp_pb_release(&pb);
}

static void test_pb__nested(void)
{
	struct pp_pb pb = PP_PB_INIT;
	unsigned char want[4 + 300 + 8];

	/* the spec's example: field 3 = { field 1 = 150 } is 1a 03 08 96 01 */
	pp_pb_begin(&pb, 3);
	pp_pb_varint(&pb, 1, 150);
	pp_pb_end(&pb);
	CU_ASSERT(bytes_eq(&pb, "\x1a\x03\x08\x96\x01", 5));
	pp_pb_reset(&pb);
	/* an empty message */
	pp_pb_begin(&pb, 1);
	pp_pb_end(&pb);
	CU_ASSERT(bytes_eq(&pb, "\x0a\x00", 2));
	pp_pb_reset(&pb);
	/* a body over 127 bytes shifts to make room for a two-byte length */
	pp_pb_begin(&pb, 1);
	pp_pb_begin(&pb, 2);
	for (int i = 0; i < 150; i++)
		pp_pb_varint(&pb, 1, (uint64_t)i % 100);	/* 2 bytes each: 300 bytes */
	pp_pb_end(&pb);
	pp_pb_varint(&pb, 3, 7);
	pp_pb_end(&pb);
	/* outer: 0a, len 305 = b1 02; inner: 12, len 300 = ac 02; 300 bytes; 18 07 */
	size_t n = 0;
	want[n++] = 0x0a;
	want[n++] = 0xb1;
	want[n++] = 0x02;
	want[n++] = 0x12;
	want[n++] = 0xac;
	want[n++] = 0x02;
	for (int i = 0; i < 150; i++) {
		want[n++] = 0x08;
		want[n++] = (unsigned char)(i % 100);
	}
	want[n++] = 0x18;
	want[n++] = 0x07;
	CU_ASSERT(bytes_eq(&pb, want, n));
	CU_ASSERT_EQUAL(pb.depth, 0);
	/* packed repeated varints */
	pp_pb_reset(&pb);
	pp_pb_begin(&pb, 4);
	pp_pb_raw_varint(&pb, 3);
	pp_pb_raw_varint(&pb, 270);
	pp_pb_raw_varint(&pb, 86942);
	pp_pb_end(&pb);
	CU_ASSERT(bytes_eq(&pb, "\x22\x06\x03\x8e\x02\x9e\xa7\x05", 8));
	pp_pb_release(&pb);
}

static void test_intern__numbering(void)
{
	struct pp_intern *t = pp_intern_new();
	char key[32];
	bool added;
	size_t sz;

	CU_ASSERT_EQUAL(pp_intern_put_str(t, "", &added), 0);
	CU_ASSERT(added);
	CU_ASSERT_EQUAL(pp_intern_put_str(t, "a", &added), 1);
	CU_ASSERT_EQUAL(pp_intern_put_str(t, "", &added), 0);
	CU_ASSERT(!added);
	/* keys are bytes: embedded NULs count */
	CU_ASSERT_EQUAL(pp_intern_put(t, "a\0b", 3, NULL), 2);
	CU_ASSERT_EQUAL(pp_intern_put(t, "a\0c", 3, NULL), 3);
	CU_ASSERT_EQUAL(pp_intern_find(t, "a\0b", 3), 2);
	CU_ASSERT_EQUAL(pp_intern_find(t, "zz", 2), -1);
	CU_ASSERT(!memcmp(pp_intern_key(t, 3, &sz), "a\0c", 3));
	CU_ASSERT_EQUAL(sz, 3);
	/* many keys: growth keeps the numbers and the stored bytes */
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof(key), "key-%d", i);
		CU_ASSERT_EQUAL_FATAL(pp_intern_put(t, key, (size_t)n, NULL), (uint32_t)i + 4);
	}
	for (int i = 0; i < 100000; i += 997) {
		int n = snprintf(key, sizeof(key), "key-%d", i);
		CU_ASSERT_EQUAL(pp_intern_find(t, key, (size_t)n), i + 4);
		CU_ASSERT_STRING_EQUAL(pp_intern_key(t, (uint32_t)i + 4, NULL), key);
	}
	CU_ASSERT_EQUAL(pp_intern_count(t), 100004);
	pp_intern_free(t);
	pp_intern_free(NULL);
}

static void test_intern__big_keys(void)
{
	struct pp_intern *t = pp_intern_new();
	static char big[200000];
	size_t sz;

	memset(big, 'x', sizeof(big));
	CU_ASSERT_EQUAL(pp_intern_put(t, "small", 5, NULL), 0);
	CU_ASSERT_EQUAL(pp_intern_put(t, big, sizeof(big), NULL), 1);
	CU_ASSERT_EQUAL(pp_intern_put(t, "after", 5, NULL), 2);
	CU_ASSERT_EQUAL(pp_intern_put(t, big, sizeof(big), NULL), 1);
	CU_ASSERT(!memcmp(pp_intern_key(t, 1, &sz), big, sizeof(big)));
	CU_ASSERT_EQUAL(sz, sizeof(big));
	CU_ASSERT_STRING_EQUAL(pp_intern_key(t, 0, NULL), "small");
	CU_ASSERT_STRING_EQUAL(pp_intern_key(t, 2, NULL), "after");
	pp_intern_free(t);
}

void test_encode__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_pb__scalars,
			"protobuf varints, ints, zigzag, strings, fixed64 match the spec"),
		PP_TEST(test_pb__nested,
			"nested messages get their length, also past one byte; packed fields"),
		PP_TEST(test_intern__numbering,
			"interned keys are numbered densely in first-seen order"),
		PP_TEST(test_intern__big_keys, "keys larger than a chunk are stored whole"),
	};
	pp_suite_add("encode", tests, PP_ARRAY_SIZE(tests));
}
