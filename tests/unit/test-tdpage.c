/* SPDX-License-Identifier: MIT */
/*
 * test-tdpage.c - a trace.dat's ring-buffer pages walked by pp (analyze/import/tdpage.c)
 * must give what libtraceevent's kbuffer gives: the same records, times, sizes, offsets and
 * missed counts, page after page of random records of every header type (data of 1-28
 * words, long data, time extends, paddings, absolute time stamps), with lengths that lie
 * and commits that do not fit.  The reference is the same walker made to use kbuffer only.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/import/tdpage.h"
#include "common/log.h"
#include "tests/unit/unit.h"

#define PAGE 4096u
#define HDR 16u

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void put32(uint8_t *b, uint32_t *at, uint32_t v)
{
	memcpy(b + *at, &v, 4);
	*at += 4;
}

/* A random page into @b (two pages long: a lying commit reads zeros, not past it). */
static void random_page(uint8_t *b, uint32_t *s)
{
	uint32_t at = HDR, n = rnd(s) % 40;
	uint64_t ts = ((uint64_t)rnd(s) << 20) | rnd(s), flags;

	memset(b, 0, 2 * PAGE);
	memcpy(b, &ts, 8);
	for (uint32_t i = 0; i < n && at < PAGE - 160; i++) {
		uint32_t kind = rnd(s) % 64, delta = rnd(s) & ((1u << 27) - 1), len;

		if (kind < 36) {			/* data, its length in the type */
			len = 1 + rnd(s) % 28;
			put32(b, &at, len | delta << 5);
			at += len * 4;
		} else if (kind < 44) {		/* data, its length in the next word */
			len = 4 * (rnd(s) % 30);
			put32(b, &at, delta << 5);
			put32(b, &at, len + 4 + (rnd(s) % 16 == 0 ? rnd(s) % 4 : 0));
			at += len;
		} else if (kind < 52) {		/* a time extend */
			put32(b, &at, 30 | delta << 5);
			put32(b, &at, rnd(s));
		} else if (kind < 62) {		/* a padding */
			len = 4 * (rnd(s) % 10) + (rnd(s) % 16 == 0 ? 1 : 0);
			put32(b, &at, 29 | (rnd(s) % 2 ? delta << 5 : 0));
			put32(b, &at, len + 4);	/* its length past its header */
			at += len & ~3u;
		} else {			/* an absolute time stamp */
			put32(b, &at, 31 | delta << 5);
			put32(b, &at, rnd(s));
		}
	}
	flags = at - HDR;
	switch (rnd(s) % 10) {
	case 0: flags += 1 + rnd(s) % 3; break;		/* a commit that is no multiple of 4 */
	case 1: flags = rnd(s) % (PAGE + 64); break;	/* anything, past the page too */
	case 2: flags -= rnd(s) % (flags + 1); break;	/* short of the records */
	}
	if (rnd(s) % 4 == 0)
		flags |= 1ull << 31 | (rnd(s) % 2 ? 1ull << 30 : 0);	/* events missed */
	memcpy(b + 8, &flags, 8);
	if (flags & (1ull << 30) && (flags & ((1u << 27) - 1)) + HDR + 8 <= PAGE) {
		uint64_t lost = rnd(s);

		memcpy(b + HDR + (flags & ((1u << 27) - 1)), &lost, 8);
	}
}

/* The walk of @b by @w: a hash of every record's place, size, time and missed count. */
static uint64_t walk(struct ana_td_page *w, uint8_t *b, unsigned *records)
{
	uint64_t h = 1469598103934665603ull;
	unsigned long long ts;
	bool first = true;

	*records = 0;
	if (ana_td_page_load(w, b, PAGE) < 0)
		return 0;
	for (void *d = ana_td_page_read(w, &ts); d; d = ana_td_page_next(w, &ts)) {
		uint64_t v[6] = { (uint64_t)((uint8_t *)d - b), ts,
				  (uint64_t)ana_td_page_event_size(w),
				  (uint64_t)ana_td_page_offset(w),
				  (uint64_t)ana_td_page_record_size(w),
				  first ? (uint64_t)ana_td_page_missed(w) : 0 };

		for (int k = 0; k < 6; k++)
			h = (h ^ v[k]) * 1099511628211ull;
		first = false;
		if (++*records > PAGE)
			break;
	}
	return h;
}

static void test_tdpage__as_kbuffer(void)
{
	struct ana_td_page own, kb;
	uint8_t *b = malloc(2 * PAGE);
	uint32_t seed = 29;
	unsigned same = 0, fast = 0, n1, n2;

	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_FATAL(ana_td_page_init(&own, true, false, false) == 0);
	CU_ASSERT_FATAL(ana_td_page_init(&kb, true, false, false) == 0);
	CU_ASSERT(own.own);
	kb.own = false;		/* the reference: kbuffer alone */
	for (int i = 0; i < 20000; i++) {
		random_page(b, &seed);
		uint64_t h1 = walk(&own, b, &n1);

		fast += own.fast;	/* walked to its end here */
		uint64_t h2 = walk(&kb, b, &n2);

		CU_ASSERT_EQUAL(n1, n2);
		CU_ASSERT_EQUAL(h1, h2);
		same += h1 == h2 && n1 == n2;
	}
	CU_ASSERT_EQUAL(same, 20000);
	CU_ASSERT(fast > 4000);		/* most pages are pp's own walk */
	ana_td_page_free(&own);
	ana_td_page_free(&kb);
	free(b);
}

/*
 * One page written by hand: 3 events missed before it, a time extend, a record of 2 words,
 * a padding, a record whose length is in its next word (12 bytes): each record's place,
 * size and time as the ring buffer's layout gives them, walked here (not by kbuffer).
 */
static void test_tdpage__by_hand(void)
{
	static uint8_t b[2 * PAGE];
	uint32_t at = HDR, commit;
	uint64_t ts0 = 1000000, missed = 3, flags;
	struct ana_td_page w;
	unsigned long long ts;
	uint8_t *d;

	memcpy(b, &ts0, 8);
	put32(b, &at, 30 | 5u << 5);		/* extend: 5 + (2 << 27) */
	put32(b, &at, 2);
	put32(b, &at, 2 | 7u << 5);		/* 2 words of data, 7 later */
	at += 8;
	put32(b, &at, 29 | 1u << 5);		/* padding: 8 bytes past its header */
	put32(b, &at, 8);
	at += 4;
	put32(b, &at, 0 | 11u << 5);		/* length word: 12 bytes of data + 4 */
	put32(b, &at, 16);
	at += 12;
	commit = at - HDR;
	flags = commit | 1ull << 31 | 1ull << 30;
	memcpy(b + 8, &flags, 8);
	memcpy(b + at, &missed, 8);
	CU_ASSERT_FATAL(ana_td_page_init(&w, true, false, false) == 0);
	CU_ASSERT_FATAL(ana_td_page_load(&w, b, PAGE) == 0);
	CU_ASSERT(w.fast);
	d = ana_td_page_read(&w, &ts);
	CU_ASSERT_PTR_EQUAL(d, b + HDR + 12);
	CU_ASSERT_EQUAL(ts, ts0 + 5 + (2ull << 27) + 7);
	CU_ASSERT_EQUAL(ana_td_page_offset(&w), HDR + 8);
	CU_ASSERT_EQUAL(ana_td_page_event_size(&w), 8);
	CU_ASSERT_EQUAL(ana_td_page_record_size(&w), 12);
	CU_ASSERT_EQUAL(ana_td_page_missed(&w), 0);	/* a time extend before it */
	d = ana_td_page_next(&w, &ts);
	CU_ASSERT_PTR_EQUAL(d, b + HDR + 40);
	CU_ASSERT_EQUAL(ts, ts0 + 5 + (2ull << 27) + 7 + 1 + 11);
	CU_ASSERT_EQUAL(ana_td_page_offset(&w), HDR + 32);
	CU_ASSERT_EQUAL(ana_td_page_event_size(&w), 12);
	CU_ASSERT_EQUAL(ana_td_page_record_size(&w), 20);
	CU_ASSERT_PTR_NULL(ana_td_page_next(&w, &ts));
	CU_ASSERT_PTR_NULL(ana_td_page_read(&w, &ts));
	CU_ASSERT(w.fast);
	CU_ASSERT_EQUAL(w.lost, 3);
	ana_td_page_free(&w);
}

void test_tdpage__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_tdpage__by_hand, "a page by hand: each record's place, size, time"),
		PP_TEST(test_tdpage__as_kbuffer, "random pages walked by pp as kbuffer walks them"),
	};

	pp_suite_add("tdpage", tests, PP_ARRAY_SIZE(tests));
}
