/* SPDX-License-Identifier: MIT */
/*
 * test-limits.c - captures that claim huge counts and lengths (common/limits.h):
 * a segment header of 4 GB, a string of 1 GB, a stack of 10^5 frames, an index
 * whose header and payload disagree, and side-band data past the budget.  Each
 * is refused with PP_ELIMIT / PP_EBAD_LENGTH or read in bounded memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "common/limits.h"
#include "common/symbolize.h"
#include "format/internal.h"
#include "tests/unit/unit.h"

/* A raw-built capture: the file header, then segments appended by seg_add(). */
struct rawcap {
	struct ppf_wbuf b;
	uint64_t seq;
};

static void cap_start(struct rawcap *c)
{
	memset(c, 0, sizeof(*c));
	CU_ASSERT_EQUAL_FATAL(ppf_wbuf_reserve(&c->b, PPF_FILE_HDR_SZ), 0);
	ppf_file_hdr_encode(1, c->b.data);
	c->b.len = PPF_FILE_HDR_SZ;
}

/* A stored (not compressed) segment of @kind holding @p; nr_records as the header claims. */
static uint64_t seg_add(struct rawcap *c, uint32_t kind, const void *p, size_t n, uint32_t nr_records)
{
	struct ppf_seg_hdr h = { .kind = kind, .seq = c->seq++, .csize = (uint32_t)n,
				 .usize = (uint32_t)n, .nr_records = nr_records,
				 .payload_crc = ppf_crc32c(0, p, n) };
	uint64_t off = c->b.len;

	CU_ASSERT_EQUAL_FATAL(ppf_wbuf_reserve(&c->b, PPF_SEG_HDR_SZ + n), 0);
	ppf_seg_hdr_encode(&h, c->b.data + c->b.len);
	c->b.len += PPF_SEG_HDR_SZ;
	wb_bytes(&c->b, p, n);
	return off;
}

static void trailer_add(struct rawcap *c, uint64_t index_off)
{
	CU_ASSERT_EQUAL_FATAL(ppf_wbuf_reserve(&c->b, PPF_TRAILER_SZ), 0);
	uint8_t *t = c->b.data + c->b.len;
	put_le64(t, index_off);
	put_le32(t + 8, ppf_crc32c(0, t, 8));
	put_le32(t + 12, PPF_TRAILER_MAGIC);
	c->b.len += PPF_TRAILER_SZ;
}

static void cap_write(struct rawcap *c, const char *path)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(c->b.data, 1, c->b.len, f), c->b.len);
	fclose(f);
	ppf_wbuf_release(&c->b);
}

/* Every record of @path; the reader's stats in @st (copied), its return in the result. */
static int read_all(const char *path, uint64_t *nr, struct ppf_read_stats *st, struct ppf_problem *first)
{
	struct ppf_reader *r;
	struct ppf_record rec;
	int rc;

	*nr = 0;
	rc = ppf_reader_open(path, 0, &r);
	if (rc) {
		ppf_reader_close(r);
		return rc;
	}
	while ((rc = ppf_reader_next(r, &rec, NULL)) == 0)
		(*nr)++;
	*st = *ppf_reader_stats(r);
	if (st->nr_problems)
		*first = st->problems[0];
	st->problems = NULL;
	ppf_reader_close(r);
	return rc;
}

static const uint8_t KV_OK[] = { PPF_REC_KV, 5, 1, 'k', 0, 0, 0 };	/* k = "" */

/* An index segment whose entries outnumber its header's nr_records (it overflowed a buffer). */
static void test_limits__index_claims(void)
{
	char path[] = "/tmp/pp-unit-limits-XXXXXX";
	int fd = mkstemp(path);
	struct ppf_wbuf idx = { 0 };
	struct rawcap c;
	uint64_t offs[300];

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	for (unsigned claim = 0; claim < 2; claim++) {
		cap_start(&c);
		for (unsigned i = 0; i < 300; i++)
			offs[i] = seg_add(&c, PPF_SEG_META, KV_OK, sizeof(KV_OK), 1);
		idx.len = 0;
		for (unsigned i = 0; i < 300; i++) {
			CU_ASSERT_EQUAL_FATAL(ppf_wbuf_reserve(&idx, 2 + 6 * PPF_VARINT_MAX), 0);
			size_t at = idx.len;
			wb_u8(&idx, PPF_REC_INDEX_ENTRY);
			wb_u8(&idx, 0);
			wb_varint(&idx, offs[i]);
			wb_varint(&idx, PPF_SEG_META);
			wb_varint(&idx, i);
			wb_varint(&idx, 0);
			wb_varint(&idx, 0);
			wb_varint(&idx, 1);
			idx.data[at + 1] = (uint8_t)(idx.len - at - 2);
		}
		/* the header claims 1 entry, then 2^32-1: neither is what the payload holds */
		uint64_t at = seg_add(&c, PPF_SEG_INDEX, idx.data, idx.len, claim ? UINT32_MAX : 1);
		trailer_add(&c, at);
		cap_write(&c, path);

		struct ppf_reader *r;
		struct ppf_record rec;
		uint64_t n = 0;
		CU_ASSERT_EQUAL_FATAL(ppf_reader_open(path, 0, &r), 0);
		CU_ASSERT_TRUE(ppf_reader_info(r)->has_index);
		while (ppf_reader_next(r, &rec, NULL) == 0)
			n++;
		CU_ASSERT_EQUAL(n, 300);
		CU_ASSERT_EQUAL(ppf_reader_stats(r)->nr_corrupt, 0);
		ppf_reader_close(r);
	}
	ppf_wbuf_release(&idx);
	unlink(path);
}

/* A segment header "of 4 GB", a string "of 1 GB", a stack of 100000 frames. */
static void test_limits__lengths(void)
{
	char path[] = "/tmp/pp-unit-limits-XXXXXX";
	int fd = mkstemp(path);
	struct ppf_read_stats st;
	struct ppf_problem p = { 0 };
	struct rawcap c;
	uint64_t n;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);

	/* 1. a header claiming csize = usize = 2^32-1 (its CRC is right): not trusted */
	cap_start(&c);
	struct ppf_seg_hdr h = { .kind = PPF_SEG_EVENTS, .flags = PPF_SEGF_ZSTD, .csize = UINT32_MAX,
				 .usize = UINT32_MAX, .nr_records = UINT32_MAX,
				 .nr_samples = UINT32_MAX };
	CU_ASSERT_EQUAL_FATAL(ppf_wbuf_reserve(&c.b, PPF_SEG_HDR_SZ), 0);
	ppf_seg_hdr_encode(&h, c.b.data + c.b.len);
	struct ppf_seg_hdr out;
	CU_ASSERT_EQUAL(ppf_seg_hdr_decode(c.b.data + c.b.len, &out), PP_ELIMIT);
	c.b.len += PPF_SEG_HDR_SZ;
	c.seq = 1;
	seg_add(&c, PPF_SEG_META, KV_OK, sizeof(KV_OK), 1);
	cap_write(&c, path);
	CU_ASSERT_EQUAL(read_all(path, &n, &st, &p), PPF_END);
	CU_ASSERT_EQUAL(n, 1);			/* the good segment after it */
	CU_ASSERT_EQUAL(p.err, PP_ELIMIT);
	CU_ASSERT_EQUAL(p.offset, PPF_FILE_HDR_SZ);

	/* 2. a KV whose key claims 2^30 bytes, then a good segment */
	const uint8_t big_str[] = { PPF_REC_KV, 7, 0x80, 0x80, 0x80, 0x80, 0x04, 'a', 0 };
	cap_start(&c);
	seg_add(&c, PPF_SEG_META, big_str, sizeof(big_str), 1);
	seg_add(&c, PPF_SEG_META, KV_OK, sizeof(KV_OK), 1);
	cap_write(&c, path);
	CU_ASSERT_EQUAL(read_all(path, &n, &st, &p), PPF_END);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(st.nr_corrupt, 1);
	CU_ASSERT_EQUAL(p.err, PP_ELIMIT);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_strerror(PP_ELIMIT), "Limits"));

	/* 3. a STACK of 100000 frames */
	const uint8_t big_stack[] = { PPF_REC_STACK, 5, 1, 0xa0, 0x8d, 0x06, 0 };
	cap_start(&c);
	seg_add(&c, PPF_SEG_EVENTS, big_stack, sizeof(big_stack), 1);
	cap_write(&c, path);
	CU_ASSERT_EQUAL(read_all(path, &n, &st, &p), PPF_END);
	CU_ASSERT_EQUAL(p.err, PP_ELIMIT);
	unlink(path);
}

/* The symtab counts what it keeps: names, symbols, maps. */
static void test_limits__symtab_mem(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_dso *d;
	char name[1001];
	size_t m0 = pp_symtab_mem(st);

	memset(name, 'x', 1000);
	name[1000] = '\0';
	CU_ASSERT_EQUAL_FATAL(pp_symtab_dso_get(st, NULL, 0, "/bin/x", 0, &d), 0);
	for (unsigned i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x1000 + 16 * i, 16, name), 0);
	size_t m1 = pp_symtab_mem(st);
	CU_ASSERT(m1 - m0 >= 1000 * 1001);
	CU_ASSERT(m1 - m0 <= 3 * 1000 * 1001);
	for (unsigned i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(pp_symtab_map_add(st, 7, i, 0x100000 * (i + 1), 4096, 0, "/bin/x",
						  NULL, 0), 0);
	CU_ASSERT(pp_symtab_mem(st) - m1 >= 1000 * 6 * sizeof(uint64_t));
	pp_symtab_free(st);
}

/* Side-band past the budget: later tasks and symbols are not kept, the replay goes on. */
static void test_limits__sideband_budget(void)
{
	char path[] = "/tmp/pp-unit-limits-XXXXXX";
	int fd = mkstemp(path);
	struct ppf_writer *w;
	struct ana_session *s;
	struct ppf_record first;
	char comm[16];

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(ppf_writer_open(path, NULL, &w), 0);
	for (uint32_t i = 1; i <= 20000; i++) {
		snprintf(comm, sizeof(comm), "t%u", i);
		struct ppf_task t = { .pid = i, .tid = i, .ppid = 1, .comm = comm, .cmdline = "" };
		CU_ASSERT_EQUAL(ppf_write_task(w, &t), 0);
	}
	for (uint32_t i = 1; i <= 20000; i++) {
		struct ppf_ksym k = { .addr = 0xffffffff81000000ull + 16 * i, .type = 't',
				      .name = "a_kernel_function_with_a_long_name", .module = "" };
		CU_ASSERT_EQUAL(ppf_write_ksym(w, &k), 0);
	}
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);

	setenv("PP_SIDEBAND_MAX", "1M", 1);
	CU_ASSERT_EQUAL_FATAL(ana_session_open(path, 0, &s), 0);
	CU_ASSERT_EQUAL(ana_session_load_meta(s, &first), PPF_END);
	CU_ASSERT_TRUE(s->sb_full);
	CU_ASSERT(s->tasks.nr > 1000 && s->tasks.nr < 20000);
	/* bounded: past the limit by at most one addition */
	CU_ASSERT(s->sb_bytes + pp_symtab_mem(s->syms) <= (1u << 20) + (256u << 10));
	CU_ASSERT_STRING_EQUAL(ana_comm(s, 5), "t5");		/* kept before the limit */
	CU_ASSERT_STRING_EQUAL(ana_comm(s, 19999), "<...>");	/* not kept */
	ana_session_free(s);

	unsetenv("PP_SIDEBAND_MAX");
	CU_ASSERT_EQUAL_FATAL(ana_session_open(path, 0, &s), 0);
	CU_ASSERT_EQUAL(ana_session_load_meta(s, &first), PPF_END);
	CU_ASSERT_FALSE(s->sb_full);
	CU_ASSERT_EQUAL(s->tasks.nr, 20000);
	CU_ASSERT_PTR_NOT_NULL(ana_ksym(s, 0xffffffff81000000ull + 16 * 20000, NULL));
	ana_session_free(s);
	unlink(path);
}

void test_limits__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_limits__index_claims, "an index whose header claims 1 or 2^32-1 entries "
						   "is read as what its payload holds"),
		PP_TEST(test_limits__lengths, "a 4 GB segment header, a 1 GB string, a 100000-frame "
					      "stack: refused, the rest read"),
		PP_TEST(test_limits__symtab_mem, "the symtab counts the bytes of what it keeps"),
		PP_TEST(test_limits__sideband_budget, "side-band past PP_SIDEBAND_MAX is not kept; "
						      "under it, all of it is"),
	};

	pp_suite_add("limits", tests, PP_ARRAY_SIZE(tests));
}
