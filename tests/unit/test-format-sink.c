/* SPDX-License-Identifier: MIT */
/*
 * test-format-sink.c - writer sinks (ppf_writer_open_cb) and segment copies
 * (ppf_writer_put_segment), the two pieces pp-record's flight recorder and
 * file rotation are built on.
 *
 * A capture is written through a sink that keeps every chunk in memory; the
 * chunks laid end to end must be a capture the reader accepts, and segments
 * picked out of it and copied into a second writer must make a valid,
 * renumbered, indexed capture of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/unit/unit.h"

struct piece {
	enum ppf_chunk_kind what;
	uint32_t kind;
	uint64_t seq, first_ns, last_ns;
	uint32_t nr_samples;
	uint8_t *data;			/* head + body */
	size_t len;
};

struct memsink {
	struct piece p[256];
	size_t nr;
	size_t bytes;
	int fail_at;			/* return -ENOSPC for this chunk (1-based), 0 never */
};

static int memsink_put(void *arg, const struct ppf_chunk *c)
{
	struct memsink *m = arg;
	struct piece *p;

	if (m->fail_at && (int)m->nr + 1 == m->fail_at)
		return -ENOSPC;
	CU_ASSERT_FATAL(m->nr < 256);
	p = &m->p[m->nr++];
	p->what = c->what;
	p->kind = c->seg_kind;
	p->seq = c->seq;
	p->first_ns = c->first_ns;
	p->last_ns = c->last_ns;
	p->nr_samples = c->nr_samples;
	p->len = c->head_sz + c->body_sz;
	p->data = malloc(p->len);
	memcpy(p->data, c->head, c->head_sz);
	if (c->body_sz)
		memcpy(p->data + c->head_sz, c->body, c->body_sz);
	m->bytes += p->len;
	return 0;
}

static void memsink_release(struct memsink *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->p[i].data);
	m->nr = 0;
}

/* Metadata, then @nr samples in segments of about 2 KiB, then a stat. */
static int write_some(struct ppf_writer *w, unsigned nr)
{
	uint8_t raw[40];
	int rc;

	rc = ppf_write_kv(w, "hostname", "sinkhost");
	if (!rc)
		rc = ppf_write_event_desc(w, &(struct ppf_event_desc){
			.id = 1, .kind = PPF_EV_TRACEPOINT, .name = "sched:sched_switch",
			.selector = "sched:sched_switch", .filter = "", .attr = "A", .attr_sz = 1,
			.format = "" });
	if (!rc)
		rc = ppf_write_ksym(w, &(struct ppf_ksym){ 0xffffffff81000000ull, 'T', "_stext", "" });
	for (unsigned i = 0; !rc && i < nr; i++) {
		struct ppf_sample s = { .time_ns = 1000 + i * 100ull, .id = 1, .cpu = i % 2,
					.pid = 10 + i % 3, .tid = 10 + i % 3, .period = 1,
					.raw = raw, .raw_sz = sizeof(raw) };
		for (size_t k = 0; k < sizeof(raw); k++)
			raw[k] = (uint8_t)(i * 7 + k);
		rc = ppf_write_sample(w, &s);
	}
	if (!rc)
		rc = ppf_write_stat(w, "samples", nr);
	return rc;
}

/* Lay pieces [from, to) end to end in a memfd. */
static int pieces_to_fd(const struct memsink *m)
{
	int fd = memfd_create("sink", 0);

	CU_ASSERT_FATAL(fd >= 0);
	for (size_t i = 0; i < m->nr; i++)
		CU_ASSERT_FATAL(write(fd, m->p[i].data, m->p[i].len) == (ssize_t)m->p[i].len);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

struct count {
	unsigned samples, kvs, ksyms;
	uint64_t first_sample_ns, last_ns;
	bool ordered;
	uint64_t nr_segments;
	bool has_index, truncated;
	uint64_t last_seq;
	bool seq_contiguous;
};

static void count_fd(int fd, struct count *c)
{
	struct ppf_reader *r;
	const struct ppf_segment *seg;
	struct ppf_record rec;
	uint64_t expect_seq = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->ordered = c->seq_contiguous = true;
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, PPF_READ_STRICT, &r) == 0);
	c->has_index = ppf_reader_info(r)->has_index;
	while ((rc = ppf_reader_next(r, &rec, &seg)) == 0) {
		if (seg->seq != expect_seq && seg->seq != expect_seq - 1)
			c->seq_contiguous = false;
		expect_seq = seg->seq + 1;
		if (rec.time_ns) {
			if (rec.time_ns < c->last_ns)
				c->ordered = false;
			c->last_ns = rec.time_ns;
		}
		if (rec.type == PPF_REC_SAMPLE) {
			if (!c->samples)
				c->first_sample_ns = rec.time_ns;
			c->samples++;
		}
		c->kvs += rec.type == PPF_REC_KV;
		c->ksyms += rec.type == PPF_REC_KSYM;
	}
	CU_ASSERT(rc == PPF_END);
	c->nr_segments = ppf_reader_stats(r)->nr_segments;
	c->truncated = ppf_reader_stats(r)->truncated;
	c->last_seq = ppf_reader_stats(r)->last_seq;
	ppf_reader_close(r);
}

static void test_ppf_sink__pieces_make_a_capture(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048 };
	struct memsink m = { 0 };
	struct ppf_writer *w;
	struct count c;
	uint64_t bytes;
	int fd;

	CU_ASSERT_FATAL(ppf_writer_open_cb(memsink_put, &m, &o, &w) == 0);
	CU_ASSERT_EQUAL(m.nr, 1);
	CU_ASSERT_EQUAL(m.p[0].what, PPF_CHUNK_FILE_HDR);
	CU_ASSERT_EQUAL(m.p[0].len, PPF_FILE_HDR_SZ);
	CU_ASSERT(write_some(w, 500) == 0);
	CU_ASSERT(ppf_writer_flush(w) == 0);
	bytes = ppf_writer_bytes(w);
	CU_ASSERT_EQUAL(bytes, m.bytes);
	CU_ASSERT(ppf_writer_close(w) == 0);

	/* header, segments of every kind written, index, trailer */
	CU_ASSERT(m.nr > 6);
	CU_ASSERT_EQUAL(m.p[m.nr - 1].what, PPF_CHUNK_TRAILER);
	CU_ASSERT_EQUAL(m.p[m.nr - 1].len, PPF_TRAILER_SZ);
	CU_ASSERT_EQUAL(m.p[m.nr - 2].kind, PPF_SEG_INDEX);
	unsigned samples = 0;
	for (size_t i = 1; i < m.nr - 1; i++) {
		CU_ASSERT_EQUAL(m.p[i].what, PPF_CHUNK_SEGMENT);
		CU_ASSERT_EQUAL(m.p[i].seq, i - 1);
		samples += m.p[i].nr_samples;
		if (m.p[i].kind == PPF_SEG_EVENTS)
			CU_ASSERT(m.p[i].first_ns <= m.p[i].last_ns && m.p[i].first_ns >= 1000);
	}
	CU_ASSERT_EQUAL(samples, 500);

	fd = pieces_to_fd(&m);
	count_fd(fd, &c);
	CU_ASSERT_EQUAL(c.samples, 500);
	CU_ASSERT(c.has_index);
	CU_ASSERT(!c.truncated);
	CU_ASSERT(c.ordered);
	close(fd);
	memsink_release(&m);
}

static void test_ppf_sink__error_is_sticky(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048 };
	struct memsink m = { .fail_at = 3 };
	struct ppf_writer *w;
	int rc;

	CU_ASSERT_FATAL(ppf_writer_open_cb(memsink_put, &m, &o, &w) == 0);
	rc = write_some(w, 500);
	CU_ASSERT_EQUAL(rc, -ENOSPC);
	CU_ASSERT(ppf_write_kv(w, "k", "v") == -ENOSPC);
	CU_ASSERT(strstr(ppf_writer_errmsg(w), "sink") != NULL);
	CU_ASSERT_EQUAL(ppf_writer_close(w), -ENOSPC);
	CU_ASSERT_EQUAL(m.nr, 2);
	memsink_release(&m);

	/* a sink that fails on the file header: no writer */
	m.fail_at = 1;
	CU_ASSERT(ppf_writer_open_cb(memsink_put, &m, &o, &w) == -ENOSPC);
	CU_ASSERT_PTR_NULL(w);
	CU_ASSERT(ppf_writer_open_cb(NULL, NULL, &o, &w) == -EINVAL);
}

/* Keep the metadata and the last @keep events segments, as a flight recorder does. */
static void test_ppf_sink__put_segment_copies(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048 };
	struct memsink m = { 0 };
	struct ppf_writer *w;
	struct count c;
	size_t nr_ev = 0, keep = 3, seen = 0;
	unsigned want = 0;
	uint64_t first_kept = 0;
	int fd;

	CU_ASSERT_FATAL(ppf_writer_open_cb(memsink_put, &m, &o, &w) == 0);
	CU_ASSERT(write_some(w, 600) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	for (size_t i = 0; i < m.nr; i++)
		nr_ev += m.p[i].kind == PPF_SEG_EVENTS;
	CU_ASSERT_FATAL(nr_ev > keep);

	fd = memfd_create("copy", 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	for (size_t i = 0; i < m.nr; i++) {
		struct piece *p = &m.p[i];

		if (p->what != PPF_CHUNK_SEGMENT || p->kind == PPF_SEG_INDEX)
			continue;
		if (p->kind == PPF_SEG_EVENTS && seen++ < nr_ev - keep)
			continue;
		if (p->kind == PPF_SEG_EVENTS) {
			want += p->nr_samples;
			if (!first_kept)
				first_kept = p->first_ns;
		}
		CU_ASSERT(ppf_writer_put_segment(w, p->data, p->len) == 0);
	}
	/* records written after the copies continue the file in time order */
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1000000, .id = 1,
							   .period = 1 }) == 0);
	want++;
	CU_ASSERT(ppf_writer_close(w) == 0);
	count_fd(fd, &c);
	CU_ASSERT_EQUAL(c.samples, want);
	CU_ASSERT_EQUAL(c.first_sample_ns, first_kept);
	CU_ASSERT_EQUAL(c.kvs, 1);
	CU_ASSERT_EQUAL(c.ksyms, 1);
	CU_ASSERT(c.has_index);
	CU_ASSERT(!c.truncated);
	CU_ASSERT(c.ordered);
	CU_ASSERT(c.seq_contiguous);
	close(fd);
	memsink_release(&m);
}

static void test_ppf_sink__put_segment_rejects(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048 };
	struct memsink m = { 0 };
	struct ppf_writer *w;
	struct piece *ev = NULL, *ix = NULL;
	struct count c;
	int fd;

	CU_ASSERT_FATAL(ppf_writer_open_cb(memsink_put, &m, &o, &w) == 0);
	CU_ASSERT(write_some(w, 100) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	for (size_t i = 0; i < m.nr; i++) {
		if (m.p[i].kind == PPF_SEG_EVENTS && !ev)
			ev = &m.p[i];
		if (m.p[i].kind == PPF_SEG_INDEX)
			ix = &m.p[i];
	}
	CU_ASSERT_FATAL(ev && ix);

	fd = memfd_create("rej", 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ev->data, 10), PP_EBAD_LENGTH);
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ev->data, ev->len - 1), PP_EBAD_LENGTH);
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ix->data, ix->len), PP_EBAD_LENGTH);
	ev->data[ev->len - 1] ^= 0x40;
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ev->data, ev->len), PP_EBAD_CRC);
	ev->data[ev->len - 1] ^= 0x40;
	ev->data[8] ^= 1;	/* the seq field: the header checksum catches it */
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ev->data, ev->len), PP_EBAD_CRC);
	ev->data[8] ^= 1;
	ev->data[0] ^= 1;
	CU_ASSERT_EQUAL(ppf_writer_put_segment(w, ev->data, ev->len), PP_EBAD_MAGIC);
	ev->data[0] ^= 1;
	/* still usable */
	CU_ASSERT(ppf_writer_put_segment(w, ev->data, ev->len) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	count_fd(fd, &c);
	CU_ASSERT_EQUAL(c.samples, ev->nr_samples);
	CU_ASSERT_EQUAL(c.nr_segments, 2);	/* the copy and the index */
	close(fd);
	memsink_release(&m);
}

void test_ppf_sink__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_ppf_sink__pieces_make_a_capture,
			"the chunks a sink receives, laid end to end, are a complete capture"),
		PP_TEST(test_ppf_sink__error_is_sticky,
			"a sink's error stops the writer and is returned by every later call"),
		PP_TEST(test_ppf_sink__put_segment_copies,
			"copied segments make an indexed, renumbered, time-ordered capture"),
		PP_TEST(test_ppf_sink__put_segment_rejects,
			"short, damaged and index segments are refused; the writer stays usable"),
	};

	pp_suite_add("ppf_sink", tests, PP_ARRAY_SIZE(tests));
}
