/* SPDX-License-Identifier: MIT */
/*
 * test-drain.c - the ring-to-FIFO copy of pp-record's drain thread, driven
 * by hand (no thread, no kernel) over a fake perf ring in memory: every
 * record written to the ring comes out of the FIFO once, in order, whatever
 * the interleaving of rounds and consumption.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "record/ring/drain.h"
#include "tests/unit/unit.h"

#define DATA_SZ 1024u			/* ring data area */
#define META_SZ 4096u			/* the metadata page */
#define REC_SZ 32u			/* every test record */

struct fake {
	struct rec_ring ring;
	uint8_t *mem;
	uint64_t next_seq;		/* next sequence number written */
	uint64_t want_seq;		/* next sequence number expected out */
	size_t nr_out, nr_bad;
};

static struct perf_event_mmap_page *meta(struct fake *f)
{
	return (struct perf_event_mmap_page *)f->mem;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->mem = calloc(1, META_SZ + DATA_SZ);
	f->ring.fd = -1;
	f->ring.base = f->mem;
	f->ring.map_sz = META_SZ + DATA_SZ;
	f->ring.data_sz = DATA_SZ;
}

/* The kernel's part: append up to @n records while the ring has room. */
static size_t fake_write(struct fake *f, size_t n)
{
	struct perf_event_mmap_page *pg = meta(f);
	uint8_t *data = f->mem + META_SZ;
	size_t done = 0;

	while (done < n && pg->data_head + REC_SZ - pg->data_tail <= DATA_SZ) {
		struct {
			struct perf_event_header h;
			uint64_t seq, pad[2];
		} r = { { PERF_RECORD_SAMPLE, 0, REC_SZ }, f->next_seq++, { 0, 0 } };

		memcpy(data + (pg->data_head & (DATA_SZ - 1)), &r, REC_SZ);
		pg->data_head += REC_SZ;
		done++;
	}
	return done;
}

static void on_rec(size_t ring, const struct perf_event_header *h, void *arg)
{
	struct fake *f = arg;
	uint64_t seq;

	(void)ring;
	memcpy(&seq, h + 1, sizeof(seq));
	if (h->type != PERF_RECORD_SAMPLE || h->size != REC_SZ || seq != f->want_seq)
		f->nr_bad++;
	f->want_seq = seq + 1;
	f->nr_out++;
}

static void consume(struct rec_drain *d, struct fake *f)
{
	uint64_t round_ns;
	bool more;

	rec_drain_consume(d, 0, 0, NULL, on_rec, f, &round_ns, &more);
}

/*
 * A FIFO that empties far from its start goes back to the start behind a
 * skip record.  If the consumer is slow, the drain thread keeps filling the
 * new lap - it must stop before it reaches the skip record's header, which
 * the consumer has not read yet (it once wrote over it: the consumer then
 * read a zero-sized "record" forever).
 */
static void test_drain__fifo_reset_keeps_the_skip_until_read(void)
{
	struct rec_drain d = { 0 };
	struct fake f;

	fake_init(&f);
	CU_ASSERT_EQUAL_FATAL(rec_drain_init(&d, &f.ring, 1, 4096, 0, 10), 0);

	/* 1.5 KiB through the FIFO and two round marks, consumed: empty past reset_at (1 KiB) */
	for (int i = 0; i < 2; i++) {
		fake_write(&f, 24);
		rec_drain_round(&d, 1);
		consume(&d, &f);
	}
	CU_ASSERT_EQUAL(f.nr_out, 48);
	CU_ASSERT_EQUAL(d.fifos[0].wpos, 1536 + 2 * 16);

	/* a slow consumer: rounds go on filling the FIFO until it is full */
	for (int i = 0; i < 20; i++) {
		fake_write(&f, 32);
		rec_drain_round(&d, 2);
	}
	CU_ASSERT_EQUAL(d.fifos[0].nr_resets, 1);
	CU_ASSERT(d.fifos[0].wpos - d.fifos[0].rpos <= d.fifos[0].size);
	consume(&d, &f);
	/* then everything, and nothing twice */
	for (int i = 0; i < 20; i++) {
		rec_drain_round(&d, 3);
		consume(&d, &f);
		fake_write(&f, 32);
	}
	rec_drain_round(&d, 4);
	consume(&d, &f);
	CU_ASSERT_EQUAL(f.nr_bad, 0);
	CU_ASSERT_EQUAL(d.nr_bad, 0);
	CU_ASSERT_EQUAL(f.nr_out, f.next_seq);
	CU_ASSERT_EQUAL(f.want_seq, f.next_seq);
	rec_drain_release(&d);
	free(f.mem);
}

/* Many laps with the consumer at every possible lag: order and count hold. */
static void test_drain__laps_with_varying_lag(void)
{
	struct rec_drain d = { 0 };
	struct fake f;

	fake_init(&f);
	CU_ASSERT_EQUAL_FATAL(rec_drain_init(&d, &f.ring, 1, 4096, 0, 10), 0);
	for (unsigned i = 0; i < 3000; i++) {
		fake_write(&f, 1 + i % 29);
		rec_drain_round(&d, i);
		if (i % 7 == 0 || i % 11 == 0)
			consume(&d, &f);
	}
	for (int i = 0; i < 200; i++) {
		rec_drain_round(&d, 5000);
		consume(&d, &f);
	}
	CU_ASSERT(d.fifos[0].nr_resets > 10);
	CU_ASSERT_EQUAL(f.nr_bad, 0);
	CU_ASSERT_EQUAL(d.nr_bad, 0);
	CU_ASSERT_EQUAL(f.nr_out, f.next_seq);
	rec_drain_release(&d);
	free(f.mem);
}

/* A held ring keeps its records (and says so); the round time comes back as published. */
static void test_drain__hold_leaves_a_ring(void)
{
	struct rec_drain d = { 0 };
	struct fake f;
	uint64_t round_ns = 0;
	bool hold = true, more = false;

	fake_init(&f);
	CU_ASSERT_EQUAL_FATAL(rec_drain_init(&d, &f.ring, 1, 4096, 0, 10), 0);
	fake_write(&f, 10);
	rec_drain_round(&d, 77);
	CU_ASSERT(rec_drain_left(&d, 0));
	CU_ASSERT_EQUAL(rec_drain_consume(&d, 0, 0, &hold, on_rec, &f, &round_ns, &more), 0);
	CU_ASSERT_EQUAL(f.nr_out, 0);
	CU_ASSERT(more);
	CU_ASSERT(rec_drain_left(&d, 0));
	CU_ASSERT_EQUAL(round_ns, 77);
	hold = false;
	CU_ASSERT(rec_drain_consume(&d, 0, 0, &hold, on_rec, &f, &round_ns, &more) > 0);
	CU_ASSERT_EQUAL(f.nr_out, 10);
	CU_ASSERT(!more);
	CU_ASSERT(!rec_drain_left(&d, 0));
	CU_ASSERT_EQUAL(d.fifos[0].round_seen, 77);
	CU_ASSERT_EQUAL(f.nr_bad, 0);
	rec_drain_release(&d);
	free(f.mem);
}

void test_drain__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_drain__fifo_reset_keeps_the_skip_until_read,
			"a FIFO sent back to its start never writes over the unread skip record"),
		PP_TEST(test_drain__laps_with_varying_lag,
			"records come out of ring and FIFO once each and in order, any consumer lag"),
		PP_TEST(test_drain__hold_leaves_a_ring,
			"a ring held back keeps its records for the next call, which takes them"),
	};
	pp_suite_add("drain", tests, PP_ARRAY_SIZE(tests));
}
