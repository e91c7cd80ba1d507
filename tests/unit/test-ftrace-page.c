/* SPDX-License-Identifier: MIT */
/*
 * test-ftrace-page.c - pp-record's tracefs event source without a kernel:
 * ring-buffer pages encoded by hand (every event header type, missed-event
 * flags, malformed pages cut at every length), and the drain thread's copy of
 * pages from a file (a pipe standing in for trace_pipe_raw) into the FIFO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "record/ftrace/ftrace-page.h"
#include "record/ring/drain.h"
#include "record/ring/sideband.h"
#include "tests/unit/unit.h"

#define PAGE 4096u

struct pg {
	uint8_t b[PAGE];
	size_t off;			/* next event, from the data start */
};

static void pg_init(struct pg *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->off = REC_FTPAGE_HDR;
}

static void put32(struct pg *p, uint32_t v)
{
	memcpy(p->b + p->off, &v, 4);
	p->off += 4;
}

/* A data event of @n bytes (a multiple of 4) filled with @fill; @big: length in array[0]. */
static void pg_data(struct pg *p, uint32_t delta, uint32_t n, uint8_t fill, int big)
{
	if (big) {
		put32(p, delta << 5);
		put32(p, n + 4);
	} else {
		put32(p, delta << 5 | n / 4);
	}
	memset(p->b + p->off, fill, n);
	p->off += n;
}

static void pg_commit(struct pg *p, uint64_t flags)
{
	uint64_t c = (p->off - REC_FTPAGE_HDR) | flags;

	memcpy(p->b + 8, &c, 8);
}

static void test_ftpage__every_event_type(void)
{
	struct pg p;
	const struct { uint64_t t; uint32_t len; uint8_t fill; } want[] = {
		{ 1000 + 5, 8, 0xa1 },
		{ 1000 + 5 + 7, 112, 0xa2 },			/* 28 words: the largest small event */
		{ 1000 + 5 + 7 + 3 + (5ull << 27 | 9), 200, 0xa3 },	/* after a time extend */
		{ 77 + 1, 12, 0xa4 },			/* after an absolute stamp */
	};
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;
	size_t used, n = 0;

	pg_init(&p, 1000);
	pg_data(&p, 5, 8, 0xa1, 0);
	pg_data(&p, 7, 112, 0xa2, 0);
	put32(&p, 29 | 1 << 5);				/* padding of a discarded event */
	put32(&p, 12);
	p.off += 8;
	put32(&p, 30 | 9 << 5);				/* time extend: 9 + (5 << 27) */
	put32(&p, 5);
	pg_data(&p, 3, 200, 0xa3, 1);
	put32(&p, 31 | 77 << 5);			/* absolute: low 59 bits = 77 */
	put32(&p, 0);
	pg_data(&p, 1, 12, 0xa4, 0);
	pg_commit(&p, 0);
	used = rec_ftpage_open(&it, p.b, PAGE);
	CU_ASSERT_EQUAL(used, p.off);
	CU_ASSERT_FALSE(it.missed);
	while (rec_ftpage_next(&it, &ev)) {
		CU_ASSERT_FATAL(n < PP_ARRAY_SIZE(want));
		CU_ASSERT_EQUAL(ev.time_ns, want[n].t);
		CU_ASSERT_EQUAL(ev.len, want[n].len);
		CU_ASSERT_EQUAL(ev.data[0], want[n].fill);
		CU_ASSERT_EQUAL(ev.data[ev.len - 1], want[n].fill);
		n++;
	}
	CU_ASSERT_EQUAL(n, PP_ARRAY_SIZE(want));
	CU_ASSERT_FALSE(it.bad);
}

static void test_ftpage__absolute_stamp_keeps_high_bits(void)
{
	struct pg p;
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;
	uint64_t base = (3ull << 59) + 500;

	pg_init(&p, base);
	put32(&p, 31 | 100 << 5);			/* below the running low bits: wrapped */
	put32(&p, 0);
	pg_data(&p, 0, 8, 1, 0);
	pg_commit(&p, 0);
	CU_ASSERT(rec_ftpage_open(&it, p.b, PAGE) > 0);
	CU_ASSERT_TRUE(rec_ftpage_next(&it, &ev));
	CU_ASSERT_EQUAL(ev.time_ns, (4ull << 59) + 100);
}

static void test_ftpage__missed_events(void)
{
	struct pg p;
	struct rec_ftpage it;
	uint64_t nr = 4242;
	size_t used;

	pg_init(&p, 1);
	pg_data(&p, 1, 8, 1, 0);
	memcpy(p.b + p.off, &nr, 8);			/* the count follows the data */
	pg_commit(&p, REC_FTPAGE_MISSED | REC_FTPAGE_MISSED_STORED);
	used = rec_ftpage_open(&it, p.b, PAGE);
	CU_ASSERT_EQUAL(used, p.off + 8);
	CU_ASSERT_TRUE(it.missed);
	CU_ASSERT_EQUAL(it.nr_missed, 4242);

	pg_commit(&p, REC_FTPAGE_MISSED);		/* dropped, count unknown */
	CU_ASSERT_EQUAL(rec_ftpage_open(&it, p.b, PAGE), p.off);
	CU_ASSERT_TRUE(it.missed);
	CU_ASSERT_EQUAL(it.nr_missed, 0);
}

static void test_ftpage__null_padding_ends_the_page(void)
{
	struct pg p;
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;
	size_t n = 0;

	pg_init(&p, 1);
	pg_data(&p, 1, 8, 1, 0);
	put32(&p, 29);					/* delta 0: the rest is unused */
	p.off += 64;
	pg_commit(&p, 0);
	rec_ftpage_open(&it, p.b, PAGE);
	while (rec_ftpage_next(&it, &ev))
		n++;
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_FALSE(it.bad);
}

/* A page whose commit or event lengths lie: every cut and every bogus length ends cleanly. */
static void test_ftpage__malformed_pages_end_the_walk(void)
{
	struct pg p;
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;
	size_t full;

	pg_init(&p, 1);
	for (int i = 0; i < 20; i++)
		pg_data(&p, 1, 4u * (1 + i % 28), (uint8_t)i, i % 3 == 0);
	pg_commit(&p, 0);
	full = p.off;
	for (size_t len = 0; len <= full; len++) {	/* the page cut short: commit too big */
		size_t used = rec_ftpage_open(&it, p.b, len);

		CU_ASSERT(len == full ? used == full : used == 0);
	}
	for (size_t c = 0; c <= full - REC_FTPAGE_HDR; c++) {	/* commit inside an event */
		uint64_t commit = c;
		size_t bytes = 0;

		memcpy(p.b + 8, &commit, 8);
		rec_ftpage_open(&it, p.b, PAGE);
		while (rec_ftpage_next(&it, &ev)) {
			CU_ASSERT(ev.data + ev.len <= p.b + REC_FTPAGE_HDR + c);
			bytes += ev.len;
		}
		CU_ASSERT(bytes <= c);
	}
	pg_init(&p, 1);					/* array[0] beyond the data */
	put32(&p, 0);
	put32(&p, 4000);
	pg_commit(&p, 0);
	rec_ftpage_open(&it, p.b, PAGE);
	CU_ASSERT_FALSE(rec_ftpage_next(&it, &ev));
	CU_ASSERT_TRUE(it.bad);
	pg_init(&p, 1);					/* array[0] below its own size */
	put32(&p, 0);
	put32(&p, 2);
	pg_commit(&p, 0);
	rec_ftpage_open(&it, p.b, PAGE);
	CU_ASSERT_FALSE(rec_ftpage_next(&it, &ev));
	CU_ASSERT_TRUE(it.bad);
}

/* --- the drain thread's copy, from a pipe standing in for trace_pipe_raw --- */

struct got {
	size_t pages, events, bad;
	uint64_t next_ts;
};

static void on_page(size_t ring, const struct perf_event_header *h, void *arg)
{
	struct got *g = arg;
	struct rec_ftpage it;
	struct rec_ftpage_ev ev;

	(void)ring;
	if (h->type != REC_SYNTH_FTRACE_PAGE ||
	    !rec_ftpage_open(&it, (const uint8_t *)(h + 1), h->size - sizeof(*h))) {
		g->bad++;
		return;
	}
	g->pages++;
	while (rec_ftpage_next(&it, &ev)) {
		if (ev.time_ns != g->next_ts)
			g->bad++;
		g->next_ts = ev.time_ns + 1;
		g->events++;
	}
}

static void drain_pages(bool spill)
{
	struct rec_ring ring = { .fd = -1, .cpu = 0 };
	uint8_t *mem = calloc(1, 8192);
	struct rec_drain d = { 0 };
	struct got g = { 0 };
	uint64_t ts = 0, round_ns;
	bool more = false;
	size_t budget = spill ? 2 * PAGE : 0, partials = 0;	/* spill: slices of 2 pages */
	int pfd[2], fds[1];
	size_t sent = 0;

	CU_ASSERT_FATAL(pipe2(pfd, O_NONBLOCK) == 0);
	ring.base = mem;			/* an empty perf ring beside the pages */
	ring.map_sz = 8192;
	ring.data_sz = 4096;
	fds[0] = pfd[0];
	CU_ASSERT_FATAL(rec_drain_init(&d, &ring, 1, 16384, 0, 10) == 0);
	rec_drain_set_tp(&d, fds, PAGE, 65536);
	if (spill)
		CU_ASSERT_FATAL(rec_drain_set_spill(&d, ".", 512u << 10) == 0);
	for (int round = 0; round < 40; round++) {
		for (int k = 0; k < 1 + round % 5; k++) {	/* pages of 1..37 events */
			struct pg p;
			int n = 1 + (round * 7 + k) % 37;

			pg_init(&p, ts);
			for (int e = 0; e < n; e++)
				pg_data(&p, e ? 1 : 0, 16, 0, 0);
			pg_commit(&p, 0);
			if (write(pfd[1], p.b, PAGE) == PAGE) {	/* else the pipe is full */
				ts += (uint64_t)n;
				sent += (size_t)n;
			}
		}
		rec_drain_round(&d, (uint64_t)round);
		if (round % 6 == 0) {			/* a slow consumer: the FIFO fills */
			rec_drain_consume(&d, 0, budget, NULL, on_page, &g, &round_ns, &more);
			partials += more;
		}
	}
	for (int i = 0; i < 500 && (g.events < sent || rec_drain_pending(&d) || more); i++) {
		rec_drain_round(&d, 1000);
		rec_drain_consume(&d, 0, budget, NULL, on_page, &g, &round_ns, &more);
		partials += more;
	}
	CU_ASSERT_EQUAL(g.bad, 0);
	CU_ASSERT_EQUAL(g.events, sent);
	CU_ASSERT(d.nr_tp_pages > 0);
	if (spill) {				/* full pages went through the file */
		CU_ASSERT(d.spill.nr_pages > 0);
		CU_ASSERT(partials > 0);	/* markers were left halfway and resumed */
		CU_ASSERT_EQUAL(rec_spill_backlog(&d.spill), 0);
		CU_ASSERT_EQUAL(d.nr_spill_bad + d.spill_lost, 0);
	} else {
		CU_ASSERT(d.nr_full > 0);		/* the FIFO did fill: pages waited in the pipe */
	}
	CU_ASSERT_EQUAL(d.nr_bad, 0);
	rec_drain_release(&d);
	close(pfd[0]);
	close(pfd[1]);
	free(mem);
}

static void test_ftpage__drain_copies_pages_once_in_order(void)
{
	drain_pages(false);
}

/* The same through a spill file (record/ring/spill.h): markers in the FIFO, pages read back. */
static void test_ftpage__drain_spills_pages_once_in_order(void)
{
	drain_pages(true);
}

void test_ftpage__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_ftpage__every_event_type,
			"small and large data events, padding, time extend and absolute stamps"),
		PP_TEST(test_ftpage__absolute_stamp_keeps_high_bits,
			"an absolute stamp below the running time's low bits wraps at 2^59"),
		PP_TEST(test_ftpage__missed_events,
			"missed-events flags, with the stored count and without"),
		PP_TEST(test_ftpage__null_padding_ends_the_page,
			"a padding event with a zero delta ends the page"),
		PP_TEST(test_ftpage__malformed_pages_end_the_walk,
			"a short page, a commit inside an event and bogus lengths never overrun"),
		PP_TEST(test_ftpage__drain_copies_pages_once_in_order,
			"tracefs pages reach the consumer once and in order, FIFO full or not"),
		PP_TEST(test_ftpage__drain_spills_pages_once_in_order,
			"... and through a spill file"),
	};
	pp_suite_add("ftpage", tests, PP_ARRAY_SIZE(tests));
}
