/* SPDX-License-Identifier: MIT */
/*
 * test-format-segq.c - a capture handed from a writer thread to a reader in memory
 * (format/segq.h), as pp-analyze reads a trace.dat while it converts.
 *
 * The records a reader takes from the queue must be those the same writes put in a
 * file, in the same order, whether the writer stores segments raw (opts.in_memory) or
 * compresses them; a queue two deep must carry any number of segments; a reader that
 * leaves early must not stop the writer; a writer that fails hands its error over after
 * its last segment; pieces lent to the queue (another process's) come back one by one
 * through the release hook.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "format/format.h"
#include "format/segq.h"
#include "tests/unit/unit.h"

#define NR_SAMPLES 3000u

/* An event description, NR_SAMPLES samples with raw data and a few COMMs, a host key. */
static int write_records(struct ppf_writer *w)
{
	static const struct ppf_event_desc desc = {
		.id = 1, .kind = PPF_EV_TRACEPOINT, .name = "sched:sched_wakeup",
		.selector = "sched:sched_wakeup", .filter = "", .format = "",
	};
	uint8_t raw[48];
	struct ppf_sample s = { .id = 1, .period = 1, .raw = raw, .raw_sz = sizeof(raw) };
	int rc = ppf_write_event_desc(w, &desc);

	for (unsigned i = 0; !rc && i < NR_SAMPLES; i++) {
		memset(raw, (int)(i * 13), sizeof(raw));
		memcpy(raw, &i, sizeof(i));	/* each record's raw its own */
		s.time_ns = 5000 + i * 37ull;
		s.cpu = i % 3;
		s.pid = s.tid = 20 + i % 5;
		rc = ppf_write_sample(w, &s);
		if (!rc && i % 700 == 0)
			rc = ppf_write_comm(w, &(struct ppf_comm){ .time_ns = s.time_ns, .pid = i,
								   .tid = i, .comm = "task" });
	}
	return rc ? rc : ppf_write_kv(w, "hostname", "segqhost");
}

/* What a reader saw: a hash of every record's type, time, cpu, tid and raw bytes. */
struct seen {
	unsigned records, samples;
	uint64_t hash;
	bool zstd;			/* a segment came compressed */
	int end;			/* ppf_reader_next()'s last return */
	char msg[256];
};

static void see(struct ppf_reader *r, struct seen *s, unsigned stop_after)
{
	const struct ppf_segment *seg;
	struct ppf_record rec;
	int rc;

	memset(s, 0, sizeof(*s));
	s->hash = 1469598103934665603ull;
	while ((rc = ppf_reader_next(r, &rec, &seg)) == 0) {
		uint64_t v[4] = { rec.type, rec.time_ns, 0, 0 };

		s->records++;
		s->zstd |= (seg->flags & PPF_SEGF_ZSTD) != 0;
		if (rec.type == PPF_REC_SAMPLE) {
			s->samples++;
			v[2] = rec.u.sample.cpu;
			v[3] = rec.u.sample.tid;
			for (uint32_t k = 0; k < rec.u.sample.raw_sz; k++)
				s->hash = (s->hash ^ rec.u.sample.raw[k]) * 1099511628211ull;
		}
		for (int k = 0; k < 4; k++)
			s->hash = (s->hash ^ v[k]) * 1099511628211ull;
		if (stop_after && s->records == stop_after)
			return;
	}
	s->end = rc;
	snprintf(s->msg, sizeof(s->msg), "%s", ppf_reader_errmsg(r));
}

/* The same writes into a file: what the queue's reader must see. */
static void see_file(struct seen *s)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048 };
	int fd = memfd_create("segq", 0);
	struct ppf_reader *r;
	struct ppf_writer *w;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	CU_ASSERT(write_records(w) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	see(r, s, 0);
	ppf_reader_close(r);
	close(fd);
}

struct job {
	struct ppf_segq *q;
	struct ppf_writer_opts o;
	int fail;			/* close the queue with this error after the writes */
	int rc;
};

static void *writer_main(void *arg)
{
	struct job *j = arg;
	struct ppf_writer *w;

	j->rc = ppf_writer_open_cb(ppf_segq_sink, j->q, &j->o, &w);
	if (!j->rc) {
		j->rc = write_records(w);
		int rc2 = ppf_writer_close(w);

		if (!j->rc)
			j->rc = rc2;
	}
	ppf_segq_close(j->q, j->fail ? j->fail : j->rc, j->fail ? "the converter failed" : NULL);
	ppf_segq_unref(j->q);
	return NULL;
}

/* A writer thread with options @o on a queue 2 deep, read by @stop_after records (0: all). */
static void see_queue(const struct ppf_writer_opts *o, int fail, unsigned stop_after,
		      struct seen *s, int *writer_rc)
{
	struct job j = { .o = *o, .fail = fail };
	struct ppf_reader *r;
	pthread_t th;

	CU_ASSERT_FATAL(ppf_segq_new(2, &j.q) == 0);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, writer_main, &j) == 0);
	CU_ASSERT_FATAL(ppf_reader_open_segq(j.q, 0, &r) == 0);
	CU_ASSERT(!ppf_reader_info(r)->has_index);
	see(r, s, stop_after);
	ppf_reader_close(r);
	pthread_join(th, NULL);
	*writer_rc = j.rc;
}

static void test_ppf_segq__same_records_as_a_file(void)
{
	struct ppf_writer_opts raw = { .seg_max_raw = 2048, .in_memory = true, .no_index = true,
				       .no_digest = true };
	struct ppf_writer_opts zst = { .seg_max_raw = 2048 };
	struct seen file, q;
	int rc;

	see_file(&file);
	CU_ASSERT_EQUAL(file.samples, NR_SAMPLES);
	CU_ASSERT_EQUAL(file.end, PPF_END);

	see_queue(&raw, 0, 0, &q, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(q.end, PPF_END);
	CU_ASSERT(!q.zstd);
	CU_ASSERT_EQUAL(q.records, file.records);
	CU_ASSERT_EQUAL(q.hash, file.hash);

	/* a writer that compresses, with index and digests: read as from a file */
	see_queue(&zst, 0, 0, &q, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(q.end, PPF_END);
	CU_ASSERT(q.zstd);
	CU_ASSERT_EQUAL(q.records, file.records);
	CU_ASSERT_EQUAL(q.hash, file.hash);
}

static void test_ppf_segq__reader_leaves_early(void)
{
	struct ppf_writer_opts raw = { .seg_max_raw = 2048, .in_memory = true, .no_index = true };
	struct seen q;
	int rc;

	/* the writer, blocked on a full queue, goes on to its end without error */
	see_queue(&raw, 0, 10, &q, &rc);
	CU_ASSERT_EQUAL(q.records, 10);
	CU_ASSERT_EQUAL(rc, 0);
}

static void test_ppf_segq__writer_error_after_its_records(void)
{
	struct ppf_writer_opts raw = { .seg_max_raw = 2048, .in_memory = true, .no_index = true };
	struct seen file, q;
	int rc;

	see_file(&file);
	see_queue(&raw, -EIO, 0, &q, &rc);
	CU_ASSERT_EQUAL(q.records, file.records);	/* every segment queued is read */
	CU_ASSERT_EQUAL(q.end, -EIO);
	CU_ASSERT(strstr(q.msg, "the converter failed") != NULL);
}

static void test_ppf_segq__nothing_queued(void)
{
	struct ppf_segq *q;
	struct ppf_reader *r;

	/* closed before the file header: an empty capture, said so */
	CU_ASSERT_FATAL(ppf_segq_new(2, &q) == 0);
	ppf_segq_close(q, 0, NULL);
	CU_ASSERT_EQUAL(ppf_segq_wait_segment(q), 0);
	ppf_segq_unref(q);
	CU_ASSERT_EQUAL(ppf_reader_open_segq(q, 0, &r), PP_EBAD_MAGIC);
	CU_ASSERT(strstr(ppf_reader_errmsg(r), "empty") != NULL);
	ppf_reader_close(r);

	/* a failure before any segment: ppf_segq_wait_segment() says it */
	CU_ASSERT_FATAL(ppf_segq_new(2, &q) == 0);
	ppf_segq_close(q, -EIO, "no file");
	CU_ASSERT_EQUAL(ppf_segq_wait_segment(q), -EIO);
	ppf_segq_unref(q);
	ppf_segq_unref(q);
}

/*
 * Lent pieces (ppf_segq_push_lent()), as analyze/import/impchild.c relays them: the writer's
 * sink copies each piece into the next of LENT_SLOTS buffers of its own, once the release
 * hook has given that buffer back, and lends it to the queue.
 */
#define LENT_SLOTS 2
#define LENT_SLOT_SZ (64u << 10)

struct lent {
	struct ppf_segq *q;
	uint8_t slot[LENT_SLOTS][LENT_SLOT_SZ];
	unsigned n, credits;
	unsigned released, left;	/* the hook's calls */
	bool dropped;			/* a push found the reader gone */
	pthread_mutex_t lock;
	pthread_cond_t back;
};

static void lent_back(void *arg, bool left)
{
	struct lent *l = arg;

	pthread_mutex_lock(&l->lock);
	l->credits += left ? LENT_SLOTS : 1;
	l->released += !left;
	l->left += left;
	pthread_cond_signal(&l->back);
	pthread_mutex_unlock(&l->lock);
}

static int lent_sink(void *arg, const struct ppf_chunk *c)
{
	struct lent *l = arg;
	uint8_t *to = l->slot[l->n % LENT_SLOTS];

	if (c->body_sz > LENT_SLOT_SZ)
		return -E2BIG;
	pthread_mutex_lock(&l->lock);
	while (!l->credits)
		pthread_cond_wait(&l->back, &l->lock);
	l->credits--;
	pthread_mutex_unlock(&l->lock);
	if (c->body_sz)	/* an empty body may have no pointer */
		memcpy(to, c->body, c->body_sz);
	l->n++;
	int rc = ppf_segq_push_lent(l->q, c->what, c->head, c->head_sz, to, c->body_sz);

	if (rc == 1) {	/* the reader has left: the buffer is straight back */
		l->dropped = true;
		lent_back(l, false);
	}
	return rc < 0 ? rc : 0;
}

static void *lent_main(void *arg)
{
	struct lent *l = arg;
	struct ppf_writer_opts o = { .seg_max_raw = 2048, .in_memory = true, .no_index = true,
				     .no_digest = true };
	struct ppf_writer *w;
	int rc = ppf_writer_open_cb(lent_sink, l, &o, &w);

	if (!rc) {
		rc = write_records(w);
		int rc2 = ppf_writer_close(w);

		rc = rc ? rc : rc2;
	}
	ppf_segq_close(l->q, rc, NULL);
	ppf_segq_unref(l->q);
	return NULL;
}

static void see_lent(struct lent *l, unsigned stop_after, struct seen *s)
{
	struct ppf_reader *r;
	pthread_t th;

	memset(l, 0, sizeof(*l));
	l->credits = LENT_SLOTS;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->back, NULL);
	CU_ASSERT_FATAL(ppf_segq_new(LENT_SLOTS, &l->q) == 0);
	ppf_segq_on_release(l->q, lent_back, l);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, lent_main, l) == 0);
	CU_ASSERT_FATAL(ppf_reader_open_segq(l->q, 0, &r) == 0);
	see(r, s, stop_after);
	ppf_reader_close(r);
	pthread_join(th, NULL);
	pthread_cond_destroy(&l->back);
	pthread_mutex_destroy(&l->lock);
}

static void test_ppf_segq__lent_pieces(void)
{
	static struct lent l;
	struct seen file, q;

	see_file(&file);
	see_lent(&l, 0, &q);
	CU_ASSERT_EQUAL(q.end, PPF_END);
	CU_ASSERT_EQUAL(q.records, file.records);
	CU_ASSERT_EQUAL(q.hash, file.hash);
	CU_ASSERT(l.n > 10);			/* many pieces through two buffers */
	CU_ASSERT_EQUAL(l.released, l.n);	/* each given back once */
	CU_ASSERT_EQUAL(l.left, 1);		/* the reader's close */
	CU_ASSERT(!l.dropped);

	/* a reader that leaves early: the hook says so once, the writer goes to its end */
	see_lent(&l, 10, &q);
	CU_ASSERT_EQUAL(q.records, 10);
	CU_ASSERT_EQUAL(l.left, 1);
	CU_ASSERT(l.dropped);
}

void test_ppf_segq__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_ppf_segq__same_records_as_a_file,
			"a queue's reader sees the records a file of the same writes holds"),
		PP_TEST(test_ppf_segq__reader_leaves_early,
			"a reader that leaves early does not stop or fail the writer"),
		PP_TEST(test_ppf_segq__writer_error_after_its_records,
			"a writer's error reaches the reader after its last segment"),
		PP_TEST(test_ppf_segq__nothing_queued,
			"a queue closed before any segment: an empty capture, or the error"),
		PP_TEST(test_ppf_segq__lent_pieces,
			"pieces lent to the queue are read in place and each given back"),
	};

	pp_suite_add("ppf_segq", tests, PP_ARRAY_SIZE(tests));
}
