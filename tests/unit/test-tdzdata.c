/* SPDX-License-Identifier: MIT */
/*
 * test-tdzdata.c - a trace.dat CPU's pages as analyze/import/tdzdata.c hands them out: zstd
 * chunks decompressed in turn (each page's bytes and offset, a page of the chunk before
 * still in place, a short chunk padded with zeros, a chunk that lies about its size or a file
 * cut inside a chunk ending the data), and pages read where they lie in a file not compressed.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyze/import/tdzdata.h"
#include "common/log.h"
#include "tests/unit/unit.h"

#define PG 256u

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t le32_of(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* @n chunks of @pages[i] pages (page k filled with k + 1) into @out. Return: its size. */
static size_t chunked(uint8_t *out, size_t cap, const unsigned *pages, unsigned n, bool lie)
{
	uint8_t raw[4 * PG];
	size_t at = 4;
	unsigned k = 0;

	put_le32(out, n);
	for (unsigned i = 0; i < n; i++) {
		size_t usize = pages[i] * PG - (i == n - 1 ? PG / 2 : 0);	/* the last short */

		for (unsigned j = 0; j < pages[i]; j++, k++)
			memset(raw + j * PG, (int)(k + 1), PG);
		size_t csize = ZSTD_compress(out + at + 8, cap - at - 8, raw, usize, 1);

		put_le32(out + at, (uint32_t)csize);
		put_le32(out + at + 4, (uint32_t)usize + (lie && i == 1 ? 8 : 0));
		at += 8 + csize;
	}
	return at;
}

static void test_tdzdata__chunks(void)
{
	static const unsigned pages[] = { 2, 3, 1 };
	static uint8_t file[8192];
	size_t sz = chunked(file, sizeof(file), pages, 3, false);
	struct ana_td_zcpu *z = ana_td_z_open(file, sz, 0, 0, false, PG);
	const uint8_t *p, *prev = NULL;
	uint64_t off;
	unsigned k = 0;

	CU_ASSERT_FATAL(z != NULL);
	while ((p = ana_td_z_next(z, &off))) {
		CU_ASSERT_EQUAL(off, (uint64_t)k * PG);
		if (k == 5) {	/* the short last page: its second half zeros */
			CU_ASSERT(p[0] == 6 && p[PG / 2 - 1] == 6);
			CU_ASSERT(p[PG / 2] == 0 && p[PG - 1] == 0);
		} else {
			CU_ASSERT(p[0] == k + 1 && p[PG - 1] == k + 1);
		}
		if (prev)	/* the page before is where it was */
			CU_ASSERT_EQUAL(prev[0], k);
		prev = p;
		k++;
	}
	CU_ASSERT_EQUAL(k, 6);
	ana_td_z_free(z);

	/* the second chunk says 8 bytes more than it holds: the data ends before it */
	sz = chunked(file, sizeof(file), pages, 3, true);
	z = ana_td_z_open(file, sz, 0, 0, false, PG);
	for (k = 0; ana_td_z_next(z, &off); k++)
		;
	CU_ASSERT_EQUAL(k, 2);
	ana_td_z_free(z);
	CU_ASSERT_PTR_NULL(ana_td_z_open(file, 3, 0, 0, false, PG));	/* no count */

	/* a file cut inside its second chunk, or inside its header: the first chunk's pages only */
	sz = chunked(file, sizeof(file), pages, 3, false);
	size_t second = 4 + 8 + le32_of(file + 4);
	size_t cuts[] = { second + 8 + 1, second + 4, second };

	for (size_t i = 0; i < PP_ARRAY_SIZE(cuts); i++) {
		z = ana_td_z_open(file, cuts[i], 0, 0, false, PG);
		CU_ASSERT_FATAL(z != NULL);
		for (k = 0; ana_td_z_next(z, &off); k++)
			;
		CU_ASSERT_EQUAL(k, 2);
		ana_td_z_free(z);
	}
	/* a count of chunks larger than the file holds: those it holds */
	put_le32(file, 1000);
	z = ana_td_z_open(file, sz, 0, 0, false, PG);
	for (k = 0; ana_td_z_next(z, &off); k++)
		;
	CU_ASSERT_EQUAL(k, 6);
	ana_td_z_free(z);
}

static void test_tdzdata__plain(void)
{
	static uint8_t file[5 * PG];
	struct ana_td_zcpu *z;
	uint64_t off;
	unsigned k;

	for (unsigned i = 0; i < 5; i++)
		memset(file + i * PG, (int)i, PG);
	z = ana_td_z_open(file, sizeof(file), PG, 3 * PG, true, PG);
	CU_ASSERT_FATAL(z != NULL);
	for (k = 0; k < 4; k++) {
		const uint8_t *p = ana_td_z_next(z, &off);

		if (k == 3) {
			CU_ASSERT_PTR_NULL(p);
			break;
		}
		CU_ASSERT_PTR_EQUAL(p, file + (k + 1) * PG);	/* where it lies */
		CU_ASSERT_EQUAL(off, (uint64_t)k * PG);
	}
	ana_td_z_free(z);
	/* a run past the file's end: only its whole pages within */
	z = ana_td_z_open(file, sizeof(file), 3 * PG, 4 * PG, true, PG);
	for (k = 0; ana_td_z_next(z, &off); k++)
		;
	CU_ASSERT_EQUAL(k, 2);
	ana_td_z_free(z);
	CU_ASSERT_PTR_NULL(ana_td_z_open(file, sizeof(file), 0, PG + 1, true, PG));
}

void test_tdzdata__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_tdzdata__chunks, "zstd chunks: each page in order, a lying size ends"),
		PP_TEST(test_tdzdata__plain, "plain pages: where they lie, whole ones only"),
	};

	pp_suite_add("tdzdata", tests, PP_ARRAY_SIZE(tests));
}
