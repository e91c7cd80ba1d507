/* SPDX-License-Identifier: MIT */
/*
 * test-unwind.c - UNWIND records: round trips through a capture, and hostile bodies
 * (lying counts, rows past 2^64, offsets past int32, trailing bytes) read as malformed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/cfi.h"
#include "analyze/internal.h"
#include "analyze/unwind.h"
#include "common/callchain.h"
#include "common/err.h"
#include "format/format.h"
#include "tests/unit/unit.h"

static const struct ppf_unwind_row sample_rows[] = {
	{ 0x1000, 0x1001, PPF_CFA_SP, PPF_REG_AT_CFA, PPF_REG_SAME, 8, -8, -16 },
	{ 0x1001, 0x1004, PPF_CFA_SP, PPF_REG_AT_CFA, PPF_REG_AT_CFA, 16, -8, -16 },
	{ 0x1004, 0x1040, PPF_CFA_FP, PPF_REG_AT_CFA, PPF_REG_AT_CFA, 16, -8, -16 },
	{ 0x1040, 0x1041, PPF_CFA_SP, PPF_REG_AT_CFA, PPF_REG_SAME, 8, -8, -16 },
	{ 0x2000, 0x2010, PPF_CFA_PLT, PPF_REG_AT_CFA, PPF_REG_SAME, 8, -8, -16 },
	{ 0x2010, 0x2020, PPF_CFA_UNKNOWN, PPF_REG_AT_CFA, PPF_REG_SAME, 8, -8, -16 },
	{ 0x3000, 0x3100, PPF_CFA_SP, PPF_REG_UNDEF, PPF_REG_SAME, -2000000000, 7, 2000000000 },
};
#define NR_SAMPLE_ROWS (sizeof(sample_rows) / sizeof(sample_rows[0]))

struct seen {
	int dsos, unwinds, bad;
	struct ppf_unwind_row rows[PPF_UNWIND_MAX_ROWS];
	uint32_t nr;
};

static int on_record(const struct ppf_record *rec, void *arg)
{
	struct seen *s = arg;

	if (rec->type == PPF_REC_DSO)
		s->dsos++;
	if (rec->type != PPF_REC_UNWIND)
		return 0;
	s->unwinds++;
	s->nr = rec->u.unwind.nr_rows;
	if (ppf_unwind_rows(&rec->u.unwind, s->rows))
		s->bad++;
	return 0;
}

static void test_unwind__roundtrip(void)
{
	int fd = memfd_create("cap", 0);
	struct ppf_writer *w;
	struct ppf_reader *r;
	struct ppf_record rec;
	struct seen s = { 0 };
	const struct ppf_dso d = { .path = "/lib/x.so", .nr_syms = 0 };
	int rc;

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT(ppf_write_dso(w, &d) == 0);
	CU_ASSERT(ppf_write_unwind(w, PPF_UNWIND_X86_64, sample_rows, NR_SAMPLE_ROWS) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	while ((rc = ppf_reader_next(r, &rec, NULL)) == 0)
		on_record(&rec, &s);
	CU_ASSERT_EQUAL(rc, PPF_END);
	CU_ASSERT_EQUAL(s.dsos, 1);
	CU_ASSERT_EQUAL(s.unwinds, 1);
	CU_ASSERT_EQUAL(s.bad, 0);
	CU_ASSERT_EQUAL(s.nr, NR_SAMPLE_ROWS);
	CU_ASSERT(memcmp(s.rows, sample_rows, sizeof(sample_rows)) == 0);
	ppf_reader_close(r);
	close(fd);
}

/* The writer refuses what the reader would: unsorted, overlapping or empty rows. */
static void test_unwind__writer_refuses(void)
{
	struct ppf_unwind_row bad[2] = { sample_rows[1], sample_rows[0] };
	int fd = memfd_create("cap", 0);
	struct ppf_writer *w;

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT_EQUAL(ppf_write_unwind(w, PPF_UNWIND_X86_64, bad, 2), PP_EBAD_RECORD);
	CU_ASSERT(ppf_writer_close(w) != 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	bad[0] = sample_rows[0];
	bad[0].end = bad[0].start;
	CU_ASSERT_EQUAL(ppf_write_unwind(w, PPF_UNWIND_X86_64, bad, 1), PP_EBAD_RECORD);
	CU_ASSERT(ppf_writer_close(w) != 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT_EQUAL(ppf_write_unwind(w, PPF_UNWIND_X86_64, sample_rows, 0), PP_EBAD_RECORD);
	CU_ASSERT(ppf_writer_close(w) != 0);
	close(fd);
}

/* Decode one UNWIND record of body @body (@n bytes); the walk's return. */
static int decode_body(const uint8_t *body, size_t n, struct seen *s)
{
	uint8_t seg[256];

	seg[0] = PPF_REC_UNWIND;
	seg[1] = (uint8_t)n;
	memcpy(seg + 2, body, n);
	memset(s, 0, sizeof(*s));
	return ppf_segment_decode(seg, n + 2, 0, 0, on_record, s);
}

static void test_unwind__hostile(void)
{
	static const struct {
		uint8_t b[24];
		size_t n;
		const char *what;
	} bad[] = {
		{ { 1, 2, 0x10, 5, 3 }, 5, "nr_rows says 2, one row" },
		{ { 1, 1, 0x10, 5, 3, 0x00 }, 6, "a byte after the last row" },
		{ { 1, 0 }, 2, "no rows" },
		{ { 2, 1, 0x01, 3 }, 4, "an unknown arch" },
		{ { 1, 1, 0x01, 0 }, 4, "an empty row" },
		{ { 1, 1, 0x11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1 },
		  14, "a row past 2^64" },
		{ { 1, 1, 0x21, 1, 0xfe, 0xff, 0xff, 0xff, 0x1f }, 9, "cfa_off past int32" },
		{ { 1, 0x81, 0x20 }, 3, "nr_rows over the limit" },
		{ { 1, 1, 0x01 }, 3, "a truncated row" },
	};
	const uint8_t good[] = { 1, 2, 0x11, 0x80, 0x20, 4, 0x21, 8, 0x10 };
	struct seen s;

	CU_ASSERT_EQUAL(decode_body(good, sizeof(good), &s), 0);
	CU_ASSERT_EQUAL(s.unwinds, 1);
	CU_ASSERT_EQUAL(s.nr, 2);
	CU_ASSERT_EQUAL(s.rows[0].start, 0x1000);
	CU_ASSERT_EQUAL(s.rows[0].end, 0x1004);
	CU_ASSERT_EQUAL(s.rows[1].start, 0x1004);
	CU_ASSERT_EQUAL(s.rows[1].end, 0x100c);
	CU_ASSERT_EQUAL(s.rows[1].cfa_off, 16);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = decode_body(bad[i].b, bad[i].n, &s);

		if (rc != PP_EBAD_RECORD || s.unwinds)
			fprintf(stderr, "not refused: %s (%d)\n", bad[i].what, rc);
		CU_ASSERT_EQUAL(rc, PP_EBAD_RECORD);
		CU_ASSERT_EQUAL(s.unwinds, 0);
	}
}

/* The capture of test_unwind__lookup: /lib/x.so (table above) mapped in process 42. */
static void write_lookup_capture(const char *path)
{
	const struct ppf_dso x = { .path = "/lib/x.so", .text_vaddr = 0x1000, .text_offset = 0x1000 };
	const struct ppf_dso y = { .path = "/lib/y.so" };
	const struct ppf_unwind_row again = { 0x1000, 0x5000, PPF_CFA_SP, PPF_REG_AT_CFA,
					      PPF_REG_SAME, 99, -8, -16 };
	const struct ppf_mmap m = { .time_ns = 1000, .pid = 42, .tid = 42, .addr = 0x7f0000000000ull,
				    .len = 0x10000, .prot = 5, .flags = 2, .path = "/lib/x.so" };
	struct ppf_writer *w;

	CU_ASSERT_FATAL(ppf_writer_open(path, NULL, &w) == 0);
	CU_ASSERT(ppf_write_dso(w, &x) == 0);
	CU_ASSERT(ppf_write_unwind(w, PPF_UNWIND_X86_64, sample_rows, NR_SAMPLE_ROWS) == 0);
	CU_ASSERT(ppf_write_dso(w, &y) == 0);
	CU_ASSERT(ppf_write_dso(w, &x) == 0);	/* written twice: the first table stays */
	CU_ASSERT(ppf_write_unwind(w, PPF_UNWIND_X86_64, &again, 1) == 0);
	CU_ASSERT(ppf_write_mmap(w, &m) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
}

static void test_unwind__lookup(void)
{
	char path[] = "/tmp/pp-unit-unwind-XXXXXX";
	const uint64_t base = 0x7f0000000000ull;
	struct ana_cfi_rule r;
	struct ana_session *s;
	struct ppf_record rec;
	uint64_t tabs, rows;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_lookup_capture(path);
	CU_ASSERT_FATAL(ana_session_open(path, 0, &s) == 0);
	while (ppf_reader_next(s->r, &rec, NULL) == 0)
		CU_ASSERT(ana_session_meta(s, &rec) == 0);
	ana_cfi_stats(s, &tabs, &rows);
	CU_ASSERT_EQUAL(tabs, 1);
	CU_ASSERT_EQUAL(rows, NR_SAMPLE_ROWS);
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x1002, &r), 1);
	CU_ASSERT(r.cfa == ANA_CFA_SP && r.cfa_off == 16 && r.ra == ANA_REG_AT_CFA &&
		  r.ra_off == -8 && r.fp == ANA_REG_AT_CFA && r.fp_off == -16);
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x1010, &r), 1);
	CU_ASSERT(r.cfa == ANA_CFA_FP && r.cfa_off == 16);
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x2000, &r), 1);
	CU_ASSERT_EQUAL(r.cfa, ANA_CFA_PLT);
	CU_ASSERT_EQUAL(ana_cfi_find(s, 42, base + 0x30ff, &r), 1);
	CU_ASSERT(r.ra == ANA_REG_UNDEF && r.cfa_off == -2000000000);
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x2015, &r), 0);	/* unknown */
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x1500, &r), 0);	/* a gap */
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x3100, &r), 0);	/* past the end */
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 500, base + 0x1002, &r), 0);	/* before the map */
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 43, 2000, base + 0x1002, &r), 0);	/* no such process */
	CU_ASSERT_EQUAL(ana_cfi_find_at(s, 42, 2000, base + 0x1000, &r), 1);
	CU_ASSERT(r.cfa == ANA_CFA_SP && r.cfa_off == 8 && r.fp == ANA_REG_SAME);
	ana_session_free(s);
	unlink(path);
}

/*
 * A sample is unwound with the maps of its own time, not those of the sample replayed before
 * it: the first stack of a program just started may come before its libraries are mapped,
 * and the next ones, after, lost their callers (the rule found for none was cached, too).
 */
static void test_unwind__sample_time(void)
{
	char path[] = "/tmp/pp-unit-unwind-XXXXXX";
	const uint64_t base = 0x7f0000000000ull, sp = 0x7ffd00001000ull;
	uint64_t words[8] = { 0 }, regs[3];
	struct ana_session *s;
	struct ana_unwind *u = ana_unwind_new();
	struct ppf_record rec;
	const uint64_t *chain;
	uint32_t nr = 0;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	write_lookup_capture(path);	/* /lib/x.so mapped in process 42 at time 1000 */
	CU_ASSERT_FATAL(ana_session_open(path, 0, &s) == 0);
	while (ppf_reader_next(s->r, &rec, NULL) == 0)
		CU_ASSERT(ana_session_meta(s, &rec) == 0);
	/*
	 * At base + 0x1002 the CFA is SP + 16, the return address at CFA - 8: words[1].  The
	 * frame pointer leads elsewhere (words[5]), as a walk without the rule would go.
	 */
	words[1] = 0x1234;
	words[4] = 0;
	words[5] = 0xdead;
	regs[0] = sp + 32;		/* BP */
	regs[1] = sp;			/* SP */
	regs[2] = base + 0x1002;	/* IP */
	for (int round = 0; round < 2; round++) {
		struct ppf_sample smp = {
			.time_ns = 2000, .pid = 42, .tid = 42, .flags = PPF_SF_USTACK,
			.uregs = regs, .nr_uregs = 3, .ustack = (const uint8_t *)words,
			.ustack_sz = sizeof(words), .ustack_addr = sp,
		};

		s->last_ns = 500;	/* the sample before it: before the map */
		chain = ana_unwind_sample(s, u, &smp, 7ull << 6, &nr);
		CU_ASSERT_FATAL(chain != NULL && nr >= 3);
		CU_ASSERT_EQUAL(chain[0], PP_CONTEXT_USER);
		CU_ASSERT_EQUAL(chain[1], base + 0x1002);
		CU_ASSERT_EQUAL(chain[2], 0x1234);
	}
	ana_unwind_free(u);
	ana_session_free(s);
	unlink(path);
}

static const struct pp_test tests[] = {
	PP_TEST(test_unwind__lookup, "ana_cfi_find() answers from a capture's tables and maps"),
	PP_TEST(test_unwind__sample_time, "a sample unwound with the maps of its own time"),
	PP_TEST(test_unwind__roundtrip, "UNWIND rows survive a capture round trip"),
	PP_TEST(test_unwind__writer_refuses, "the writer refuses unsorted or empty rows"),
	PP_TEST(test_unwind__hostile, "hostile UNWIND bodies are malformed records"),
};

void test_unwind__register(void)
{
	pp_suite_add("unwind", tests, sizeof(tests) / sizeof(tests[0]));
}
