/* SPDX-License-Identifier: MIT */
/*
 * test-state-spec.c - the numbers of docs/state-format.md, checked against
 * hand-written bytes, and the reader fed damaged and hostile files.
 *
 * If one of these fails, either the code or the spec is wrong: change both
 * together, and think about the version number.  The hostile cases run under
 * `make asan` too: a read past a buffer fails them there.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/state/internal.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/wire.h"
#include "format/format.h"
#include "tests/unit/unit.h"

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

/* The payloads of a small state, field by field as the spec's tables give them. */
static const char ident[] =
	"\x03top\0"			/* analyzer */
	"\x01"				/* version 1 */
	"\x01" "\x0a--event=ev\0"	/* one arg */
	"\x0a--event=ev\0"		/* options */
	"\x01" "\x00" "\x04s:ev\0";	/* one event: position 0, "s:ev" */
static const char sources[] =
	"\x01"				/* one source */
	"\x05" "\x2a"			/* created 5, fingerprint 42 */
	"\x01h\0" "\x01p\0"		/* host, path */
	"\x00" "\x00"			/* the whole capture */
	"\x64" "\xc8\x01"		/* first 100, last 200 */
	"\x01" "\x64" "\xe8\x07";	/* clock pair (100, 1000) */
static const char context[] =
	"\x01" "\x08hostname\0" "\x01h\0"					/* host keys */
	"\x01" "\x01\x02\x00" "\x04s:ev\0" "\x04s:ev\0" "\x00\0" "\x00" "\x00\0"	/* one event */
	"\x01" "\x27" "\x06getpid\0"						/* syscall 39 */
	"\x01" "\x07\x07\x01" "\x00" "\x04init\0"				/* task 7 */
	"\x03" "\x00" "\x01" "\x01\x03"						/* 3 lost, on cpu 1 */
	"\x00" "\x00";								/* no damage */
static const char analyzer[] = "\x03\x01\x01\x07\x04init\0\x03";

static void put_le16(struct pp_buf *b, uint16_t v)
{
	pp_buf_add(b, (uint8_t[]){ (uint8_t)v, (uint8_t)(v >> 8) }, 2);
}

static void put_section(struct pp_buf *b, unsigned kind, unsigned flags, const uint8_t *p,
			size_t n)
{
	size_t at = b->len;

	put_le16(b, (uint16_t)kind);
	put_le16(b, (uint16_t)flags);
	pp_wire_put_le32(b, (uint32_t)n);
	/* the crc: of kind, flags and size, then of the payload */
	pp_wire_put_le32(b, ppf_crc32c(ppf_crc32c(0, b->data + at, 8), p, n));
	pp_buf_add(b, p, n);
}

/* The whole file by hand; @extra: an optional section of kind 9 before ANALYZER. */
static void hand_file(struct pp_buf *b, bool extra)
{
	uint8_t h[32] = { 'P', 'P', 'S', 'T', '\r', '\n', 0x1a, '\n', 1, 0, 0, 0, 32, 0, 0, 0,
			  0x04, 0x03, 0x02, 0x01 };
	uint32_t crc = ppf_crc32c(0, h, 28);
	uint8_t end[8];

	memcpy(h + 28, &crc, 4);	/* little-endian host */
	pp_buf_reset(b);
	pp_buf_add(b, h, 32);
	put_section(b, 1, 1, S(ident));
	put_section(b, 2, 1, S(sources));
	put_section(b, 3, 1, S(context));
	if (extra)
		put_section(b, 9, 0, S("later"));
	put_section(b, 4, 1, S(analyzer));
	uint64_t at = b->len;
	for (int i = 0; i < 8; i++)
		end[i] = (uint8_t)(at >> (8 * i));
	put_section(b, 255, 1, end, 8);
}

static int decode(const struct pp_buf *b, struct ana_state *st, char *err, size_t errsz)
{
	memset(st, 0, sizeof(*st));
	int rc = ana_state_decode((const uint8_t *)b->data, b->len, st, err, errsz);
	return rc;
}

static void test_spec__constants(void)
{
	CU_ASSERT_EQUAL(memcmp(ANA_STATE_MAGIC, "\x50\x50\x53\x54\x0d\x0a\x1a\x0a", 8), 0);
	CU_ASSERT(ANA_STATE_MAJOR == 1 && ANA_STATE_MINOR == 0);
	CU_ASSERT(ANA_STATE_HDR_SZ == 32 && ANA_STATE_SEC_HDR_SZ == 12);
	CU_ASSERT(ANA_SEC_IDENT == 1 && ANA_SEC_SOURCES == 2 && ANA_SEC_CONTEXT == 3 &&
		  ANA_SEC_ANALYZER == 4 && ANA_SEC_END == 255 && ANA_SECF_REQUIRED == 1);
	CU_ASSERT_EQUAL(ANA_STATE_MAX_FILE, 1ull << 30);
	CU_ASSERT(PP_HIST_SUB == 128 && PP_HIST_GROUPS == 58);
	CU_ASSERT_EQUAL(ppf_crc32c(0, "123456789", 9), 0xE3069283u);
}

/* Hand-written bytes decode to the fields the spec names, and encode back to themselves. */
static void test_spec__hand_written(void)
{
	struct pp_buf b = PP_BUF_INIT, again = PP_BUF_INIT;
	struct ana_state st;
	char err[256] = "";

	hand_file(&b, false);
	CU_ASSERT_EQUAL_FATAL(decode(&b, &st, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(st.analyzer, "top");
	CU_ASSERT_EQUAL(st.version, 1);
	CU_ASSERT(st.argc == 2 && !strcmp(st.argv[0], "top") && !strcmp(st.argv[1], "--event=ev"));
	CU_ASSERT_STRING_EQUAL(st.options, "--event=ev");
	CU_ASSERT(st.nr_matches == 1 && st.matches[0].pos == 0 &&
		  !strcmp(st.matches[0].name, "s:ev"));
	CU_ASSERT_FATAL(st.nr_srcs == 1);
	CU_ASSERT(st.srcs[0].created_ns == 5 && st.srcs[0].fingerprint == 42);
	CU_ASSERT(!strcmp(st.srcs[0].host, "h") && !strcmp(st.srcs[0].path, "p"));
	CU_ASSERT(!st.srcs[0].range_start_ns && !st.srcs[0].range_end_ns);
	CU_ASSERT(st.srcs[0].first_ns == 100 && st.srcs[0].last_ns == 200);
	CU_ASSERT(st.srcs[0].have_sync && st.srcs[0].sync_perf_ns == 100 &&
		  st.srcs[0].sync_real_ns == 1000);
	CU_ASSERT(st.ctx.nr_kv == 1 && !strcmp(st.ctx.kv[0].key, "hostname"));
	CU_ASSERT_FATAL(st.ctx.nr_events == 1);
	CU_ASSERT(st.ctx.events[0].id == 1 && st.ctx.events[0].kind == 2 &&
		  !strcmp(st.ctx.events[0].name, "s:ev") && !st.ctx.events[0].attr_sz);
	CU_ASSERT(st.ctx.nr_syscalls == 1 && st.ctx.syscalls[0].nr == 39 &&
		  !strcmp(st.ctx.syscalls[0].name, "getpid"));
	CU_ASSERT(st.ctx.nr_tasks == 1 && st.ctx.tasks[0].tid == 7 && st.ctx.tasks[0].ppid == 1 &&
		  !strcmp(st.ctx.tasks[0].comm, "init"));
	CU_ASSERT(st.ctx.lost_total == 3 && !st.ctx.lost_saturated && st.ctx.nr_lost == 1 &&
		  st.ctx.lost[0].cpu == 1 && st.ctx.lost[0].count == 3);
	CU_ASSERT(st.az_size == sizeof(analyzer) - 1 &&
		  !memcmp(st.az_data, analyzer, sizeof(analyzer) - 1));
	ana_state_encode(&st, st.az_data, st.az_size, &again);
	CU_ASSERT(again.len == b.len && !memcmp(again.data, b.data, b.len));
	ana_state_release(&st);

	/* an optional section of a later minor version is skipped */
	hand_file(&b, true);
	CU_ASSERT_EQUAL(decode(&b, &st, err, sizeof(err)), 0);
	ana_state_release(&st);
	pp_buf_release(&b);
	pp_buf_release(&again);
}

/* Patch @b at @off and fix every checksum, so that the fields themselves are tested. */
static void patch(struct pp_buf *b, size_t off, const void *p, size_t n)
{
	uint8_t *d = (uint8_t *)b->data;
	uint32_t crc;

	memcpy(d + off, p, n);
	crc = ppf_crc32c(0, d, 28);
	memcpy(d + 28, &crc, 4);
	for (size_t at = 32; at + 12 <= b->len;) {
		uint32_t sz;
		memcpy(&sz, d + at + 4, 4);
		if (sz > b->len - at - 12)
			break;
		crc = ppf_crc32c(ppf_crc32c(0, d + at, 8), d + at + 12, sz);
		memcpy(d + at + 8, &crc, 4);
		at += 12 + sz;
	}
}

static void expect_refused(struct pp_buf *b, const char *what, const char *msg)
{
	struct ana_state st;
	char err[256] = "";
	int rc = decode(b, &st, err, sizeof(err));

	if (!rc || (msg && !strstr(err, msg)))
		fprintf(stderr, "%s: rc %d, '%s'\n", what, rc, err);
	CU_ASSERT_NOT_EQUAL(rc, 0);
	if (msg)
		CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
	ana_state_release(&st);
}

/* The refusals the spec lists, each named in its message. */
static void test_spec__refusals(void)
{
	struct pp_buf b = PP_BUF_INIT;
	const size_t ident_at = 32 + 12, sources_at = ident_at + sizeof(ident) - 1 + 12;

	hand_file(&b, false);
	b.data[0] = 'X';
	expect_refused(&b, "magic", "bad magic");
	hand_file(&b, false);
	b.data[40] ^= 1;	/* the IDENT section's crc */
	expect_refused(&b, "section crc", "checksum");
	hand_file(&b, false);
	patch(&b, 8, "\x02\x00", 2);
	expect_refused(&b, "major", "2.0");
	hand_file(&b, false);
	patch(&b, 20, "\x01", 1);
	expect_refused(&b, "flags", "flags");
	hand_file(&b, false);
	b.len -= 3;
	expect_refused(&b, "cut", NULL);
	hand_file(&b, false);
	pp_buf_add(&b, "x", 1);
	expect_refused(&b, "bytes after END", "after");
	/* a count larger than what is left: refused before anything is allocated for it */
	hand_file(&b, false);
	patch(&b, ident_at + 6, "\xff", 1);	/* nr_args 0xff 0x0a: 1407 strings in 36 bytes */
	expect_refused(&b, "count", "arguments");
	/* a string whose NUL is not where its length says */
	hand_file(&b, false);
	patch(&b, ident_at + 0, "\x02", 1);
	expect_refused(&b, "string", "NUL");
	/* a range that ends before it starts */
	hand_file(&b, false);
	patch(&b, sources_at + 1 + 2 + 3 + 3, "\x05\x03", 2);
	expect_refused(&b, "range", "bad range");
	/* IDENT twice, a required section of an unknown kind */
	hand_file(&b, false);
	patch(&b, sources_at - 12, "\x01\x00", 2);
	expect_refused(&b, "order", "out of order");
	hand_file(&b, false);
	patch(&b, sources_at - 12, "\x09\x00", 2);
	expect_refused(&b, "unknown required", "unknown");
	pp_buf_release(&b);
}

/* Every cut and every changed byte (checksums fixed or not) is refused or read whole. */
static void test_spec__hostile(void)
{
	struct pp_buf good = PP_BUF_INIT, b = PP_BUF_INIT;
	struct ana_state st;
	char err[256];
	size_t ok = 0;

	hand_file(&good, false);
	for (size_t n = 0; n < good.len; n++) {
		pp_buf_reset(&b);
		pp_buf_add(&b, good.data, n);
		CU_ASSERT_NOT_EQUAL(decode(&b, &st, err, sizeof(err)), 0);
		ana_state_release(&st);
	}
	for (size_t i = 0; i < good.len; i++) {
		for (unsigned v = 0; v < 256; v += 51) {
			uint8_t x = (uint8_t)(good.data[i] ^ (v | 1));
			pp_buf_reset(&b);
			pp_buf_add(&b, good.data, good.len);
			b.data[i] = (char)x;
			CU_ASSERT_NOT_EQUAL(decode(&b, &st, err, sizeof(err)), 0);
			ana_state_release(&st);
			patch(&b, i, &x, 1);
			if (!decode(&b, &st, err, sizeof(err)))
				ok++;
			ana_state_release(&st);
		}
	}
	CU_ASSERT(ok > 0);	/* some changes are still a state: a name, a count's value */
	pp_buf_release(&good);
	pp_buf_release(&b);
}

static void test_spec__varint(void)
{
	struct pp_buf b = PP_BUF_INIT;
	struct pp_wire r;

	pp_wire_put_varint(&b, 0);
	pp_wire_put_varint(&b, 300);
	pp_wire_put_varint(&b, UINT64_MAX);
	CU_ASSERT(b.len == 1 + 2 + 10 && (uint8_t)b.data[1] == 0xac && (uint8_t)b.data[2] == 0x02);
	CU_ASSERT_EQUAL((uint8_t)b.data[12], 0x01);	/* the tenth byte holds bit 63 */
	pp_wire_init(&r, b.data, b.len);
	CU_ASSERT(pp_wire_varint(&r) == 0 && pp_wire_varint(&r) == 300 &&
		  pp_wire_varint(&r) == UINT64_MAX && pp_wire_ok(&r) && !pp_wire_left(&r));
	/* over 64 bits, over 10 bytes, cut: errors that stick */
	pp_wire_init(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
	CU_ASSERT(pp_wire_varint(&r) == 0 && !pp_wire_ok(&r));
	pp_wire_init(&r, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 11);
	CU_ASSERT(pp_wire_varint(&r) == 0 && !pp_wire_ok(&r));
	pp_wire_init(&r, "\x80", 1);
	CU_ASSERT(pp_wire_varint(&r) == 0 && !pp_wire_ok(&r) && pp_wire_u8(&r) == 0);
	CU_ASSERT_STRING_EQUAL(pp_wire_str(&r), "");
	/* strings: length, bytes, NUL */
	pp_wire_init(&r, "\x02hi\0", 4);
	CU_ASSERT_STRING_EQUAL(pp_wire_str(&r), "hi");
	pp_wire_init(&r, "\x02hi", 3);
	CU_ASSERT(!*pp_wire_str(&r) && !pp_wire_ok(&r));
	pp_wire_init(&r, "\x02h\0\0", 4);
	CU_ASSERT(!*pp_wire_str(&r) && !pp_wire_ok(&r));
	/* a count of items that cannot fit */
	pp_wire_init(&r, "\x05\0\0\0\0", 5);
	CU_ASSERT(pp_wire_count(&r, 1, 100, "x") == 0 && !pp_wire_ok(&r));
	pp_wire_init(&r, "\x04\0\0\0\0", 5);
	CU_ASSERT(pp_wire_count(&r, 1, 100, "x") == 4 && pp_wire_ok(&r));
	pp_buf_release(&b);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Histograms written and read back, split in two and merged: the one-pass histogram. */
static void test_spec__hist_exact(void)
{
	struct pp_hist all, a, b, ra, rb;
	struct pp_buf w = PP_BUF_INIT;
	struct pp_wire r;
	uint64_t s = 88172645463325252ull;

	pp_hist_init(&all);
	pp_hist_init(&a);
	pp_hist_init(&b);
	for (int i = 0; i < 20000; i++) {
		uint64_t v = rnd(&s) >> (rnd(&s) % 64);
		pp_hist_add(&all, v);
		pp_hist_add(i % 3 ? &a : &b, v);
	}
	pp_wire_put_hist(&w, &a);
	pp_wire_put_hist(&w, &b);
	pp_wire_init(&r, w.data, w.len);
	pp_hist_init(&ra);
	pp_hist_init(&rb);
	CU_ASSERT_EQUAL(pp_wire_hist(&r, &ra), 0);
	CU_ASSERT_EQUAL(pp_wire_hist(&r, &rb), 0);
	CU_ASSERT_EQUAL(pp_wire_left(&r), 0);
	pp_hist_merge(&rb, &ra);
	CU_ASSERT(rb.count == all.count && rb.min == all.min && rb.max == all.max &&
		  rb.sum == all.sum);
	for (unsigned g = 0; g < PP_HIST_GROUPS; g++) {
		CU_ASSERT_EQUAL(rb.group_count[g], all.group_count[g]);
		for (unsigned i = 0; all.groups[g] && i < PP_HIST_SUB; i++)
			CU_ASSERT_EQUAL(rb.groups[g] ? rb.groups[g][i] : 0, all.groups[g][i]);
	}
	for (double p = 0; p <= 100; p += 0.5)
		CU_ASSERT_EQUAL(pp_hist_percentile(&rb, p), pp_hist_percentile(&all, p));
	pp_hist_release(&all);
	pp_hist_release(&a);
	pp_hist_release(&b);
	pp_hist_release(&ra);
	pp_hist_release(&rb);
	pp_buf_release(&w);
}

/* A histogram's bytes by hand, and what the reader refuses in them. */
static void test_spec__hist_bytes(void)
{
	struct pp_hist h;
	struct pp_wire r;
	/* values 3 and 1000: count 2, min 3, max 1000 (e8 07), sum 1003 (eb 07, high 0),
	 * buckets 3 (index 3) and [1000, 1003] (index 3*128 + 122 = 506: gap 506 - 4 = 502) */
	static const char good[] = "\x02\x03\xe8\x07\xeb\x07\x00\x02\x03\x01\xf6\x03\x01";
#define B(x) { x, sizeof(x) - 1 }
	static const struct { const char *b; size_t n; } bad[] = {
		B("\x02\x03\xe8\x07\xeb\x07\x00\x02\x03\x01\xf6\x03\x02"),	/* counts add to 3 */
		B("\x02\x04\xe8\x07\xeb\x07\x00\x02\x03\x01\xf6\x03\x01"),	/* min outside bucket 3 */
		B("\x02\x03\xf0\x07\xeb\x07\x00\x02\x03\x01\xf6\x03\x01"),	/* max outside [1000, 1003] */
		B("\x02\x03\xe8\x07\x01\x00\x02\x03\x01\xf6\x03\x01"),	/* sum below 2 * min */
		B("\x02\x03\xe8\x07\xeb\x07\x00\x02\x03\x01\xff\x7f\x01"),	/* index past 58 * 128 */
		B("\x02\x03\xe8\x07\xeb\x07\x00\x02\x03\x00\xf6\x03\x02"),	/* an empty bucket */
		B("\x02\x03\xe8\x07\xeb\x07\x00\x00"),				/* no bucket */
		B("\x02\x03\xe8\x07\xeb\x07\x00\x09\x03\x01\xf6\x03\x01"),	/* 9 buckets in 6 bytes */
	};
#undef B

	pp_hist_init(&h);
	pp_wire_init(&r, good, sizeof(good) - 1);
	CU_ASSERT_EQUAL(pp_wire_hist(&r, &h), 0);
	CU_ASSERT(h.count == 2 && h.min == 3 && h.max == 1000 && h.sum == 1003);
	CU_ASSERT(h.groups[0] && h.groups[0][3] == 1 && h.groups[3] && h.groups[3][122] == 1);
	CU_ASSERT_EQUAL(pp_hist_percentile(&h, 100), 1000);
	pp_hist_release(&h);
	for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++) {
		pp_hist_init(&h);
		pp_wire_init(&r, bad[i].b, bad[i].n);
		if (!pp_wire_hist(&r, &h))
			fprintf(stderr, "hist %zu accepted\n", i);
		CU_ASSERT(!pp_wire_ok(&r));
		pp_hist_release(&h);
	}
}

void test_state__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_spec__constants, "magic, version, sizes and section kinds as the spec says"),
		PP_TEST(test_spec__hand_written, "hand-written bytes decode to the spec's fields and encode back"),
		PP_TEST(test_spec__refusals, "bad magic, crc, version, flags, counts, strings, ranges, order: refused by name"),
		PP_TEST(test_spec__hostile, "every cut and changed byte, checksums fixed or not: refused or whole"),
		PP_TEST(test_spec__varint, "varints, strings and counts, with sticky errors"),
		PP_TEST(test_spec__hist_exact, "a histogram split, written, read and merged is the one-pass histogram"),
		PP_TEST(test_spec__hist_bytes, "a histogram's bytes by hand, and its refusals"),
	};

	pp_suite_add("state", tests, PP_ARRAY_SIZE(tests));
}
