/* SPDX-License-Identifier: MIT */
/*
 * test-dwunits.c - DWARF's unit headers and abbreviation tables read by hand
 * (common/dwunits.c), on bytes made here: the fields of good ones, and every cut and lie
 * refused without reading past the end (each buffer is allocated at its exact size, so
 * that AddressSanitizer sees any byte read past it).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwunits.h"
#include "common/log.h"
#include "tests/unit/unit.h"

/* @n bytes of @src as a section all of whose bytes are there (no stream behind it). */
static struct pp_dwlazy *plain(const uint8_t *src, size_t n)
{
	struct pp_dwlazy *l = pp_xcalloc(1, sizeof(*l));

	l->buf = pp_xmalloc(n ? n : 1);
	memcpy(l->buf, src, n);
	l->size = l->done = n;
	pthread_mutex_init(&l->lock, NULL);
	return l;
}

static void plain_free(struct pp_dwlazy *l)
{
	pthread_mutex_destroy(&l->lock);
	free(l->buf);
	free(l);
}

/* Two units: DWARF 5 with 32-bit offsets, then DWARF 4 with 64-bit ones. */
static const uint8_t units[] = {
	/* unit_length 12, version 5, DW_UT_compile, address size 8, abbrev offset 0x10 */
	12, 0, 0, 0, 5, 0, 1, 8, 0x10, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd,
	/* 64-bit: escape, unit_length 13, version 4, abbrev offset 0x20 (8 bytes), size 8 */
	0xff, 0xff, 0xff, 0xff, 13, 0, 0, 0, 0, 0, 0, 0,
	4, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 8, 0xee, 0xee,
};

static void test_dwunits__unit_headers(void)
{
	struct pp_dwlazy *l = plain(units, sizeof(units));
	struct pp_dw_unit u;

	CU_ASSERT_FATAL(pp_dw_unit_at(l, 0, &u));
	CU_ASSERT_EQUAL(u.version, 5);
	CU_ASSERT_EQUAL(u.abbrev, 0x10);
	CU_ASSERT_EQUAL(u.end, 16);
	CU_ASSERT_FATAL(pp_dw_unit_at(l, 16, &u));
	CU_ASSERT_EQUAL(u.version, 4);
	CU_ASSERT_EQUAL(u.abbrev, 0x20);
	CU_ASSERT_EQUAL(u.end, sizeof(units));
	CU_ASSERT_FALSE(pp_dw_unit_at(l, sizeof(units), &u));	/* past the end */
	CU_ASSERT_FALSE(pp_dw_unit_at(l, 3, &u));		/* a length of 0x05000000 */
	plain_free(l);
	/* every cut: the first unit whole or not at all, the second never */
	for (size_t n = 0; n < sizeof(units); n++) {
		l = plain(units, n);
		CU_ASSERT_EQUAL(pp_dw_unit_at(l, 0, &u), n >= 16);
		CU_ASSERT_FALSE(pp_dw_unit_at(l, 16, &u));
		plain_free(l);
	}
	/* lies: versions 1 and 6, a reserved length, a length shorter than its header */
	for (int lie = 0; lie < 4; lie++) {
		uint8_t b[sizeof(units)];

		memcpy(b, units, sizeof(b));
		if (lie < 2)
			b[4] = lie ? 6 : 1;
		else if (lie == 2)
			memcpy(b, (const uint8_t[]){ 0xf0, 0xff, 0xff, 0xff }, 4);
		else
			b[0] = 5;
		l = plain(b, sizeof(b));
		CU_ASSERT_FALSE(pp_dw_unit_at(l, 0, &u));
		plain_free(l);
	}
}

/*
 * An abbreviation table: a compile unit (name: strp, stmt_list: sec_offset) and a
 * subprogram (abstract_origin: ref4, const_value: implicit_const -3), then the 0 ending it.
 */
static const uint8_t abbrevs[] = {
	1, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp, DW_AT_stmt_list, DW_FORM_sec_offset,
	0, 0,
	2, DW_TAG_subprogram, 0, DW_AT_abstract_origin, DW_FORM_ref4, DW_AT_const_value,
	DW_FORM_implicit_const, 0x7d, 0, 0,
	0,
};

static void test_dwunits__abbrevs(void)
{
	struct pp_dwlazy *l = plain(abbrevs, sizeof(abbrevs));
	uint8_t b[sizeof(abbrevs)];
	bool leaves = false;

	CU_ASSERT(pp_dw_abbrevs_need(l, 0, &leaves));
	CU_ASSERT_FALSE(leaves);
	CU_ASSERT(pp_dw_abbrevs_need(l, 0, NULL));
	CU_ASSERT(pp_dw_abbrevs_need(l, sizeof(abbrevs) - 1, &leaves));	/* an empty table */
	CU_ASSERT_FALSE(pp_dw_abbrevs_need(l, sizeof(abbrevs), &leaves));	/* past the end */
	plain_free(l);
	/* a reference that may leave the unit, in any of its forms */
	static const uint8_t leaving[] = { DW_FORM_ref_addr, DW_FORM_ref_sig8, DW_FORM_indirect,
					   DW_FORM_ref_sup4, DW_FORM_ref_sup8 };
	for (size_t i = 0; i < sizeof(leaving); i++) {
		memcpy(b, abbrevs, sizeof(b));
		b[13] = leaving[i];	/* abstract_origin's form */
		l = plain(b, sizeof(b));
		leaves = false;
		CU_ASSERT(pp_dw_abbrevs_need(l, 0, &leaves));
		CU_ASSERT(leaves);
		plain_free(l);
	}
	/* every cut before the table's end: refused */
	for (size_t n = 0; n < sizeof(abbrevs); n++) {
		l = plain(abbrevs, n);
		CU_ASSERT_FALSE(pp_dw_abbrevs_need(l, 0, &leaves));
		plain_free(l);
	}
	/* a number that never ends (every byte with its top bit set) */
	memset(b, 0x80, sizeof(b));
	l = plain(b, sizeof(b));
	CU_ASSERT_FALSE(pp_dw_abbrevs_need(l, 0, &leaves));
	plain_free(l);
}

void test_dwunits__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_dwunits__unit_headers, "unit headers: fields, every cut, lies"),
		PP_TEST(test_dwunits__abbrevs, "abbreviation tables: forms, every cut, lies"),
	};

	pp_suite_add("dwunits", tests, PP_ARRAY_SIZE(tests));
}
