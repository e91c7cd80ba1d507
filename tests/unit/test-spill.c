/* SPDX-License-Identifier: MIT */
/*
 * test-spill.c - the spill file of tracefs pages (record/ring/spill.c), with a
 * pipe standing in for trace_pipe_raw (splice moves pipe buffers the same
 * way): every page comes back once, in order, across restarts of the file;
 * the bound stops the spill; a write that fails halfway through loses no
 * page.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/log.h"
#include "record/ring/spill.h"
#include "tests/unit/unit.h"

#define PAGE 4096u

struct src {
	int fd[2];
	uint32_t next;			/* the number of the next page written */
	uint32_t want;			/* ... and of the next page expected back */
	size_t bad, back;
};

static void src_open(struct src *s)
{
	memset(s, 0, sizeof(*s));
	CU_ASSERT_FATAL(pipe2(s->fd, O_NONBLOCK | O_CLOEXEC) == 0);
	fcntl(s->fd[1], F_SETPIPE_SZ, 1 << 20);
}

/* Write @n pages numbered on from s->next: a page is its number, over and over. */
static size_t src_write(struct src *s, size_t n)
{
	uint32_t page[PAGE / 4];
	size_t done = 0;

	for (; done < n; done++) {
		for (size_t k = 0; k < PAGE / 4; k++)
			page[k] = s->next;
		if (write(s->fd[1], page, PAGE) != PAGE)
			break;
		s->next++;
	}
	return done;
}

static void check_page(struct src *s, const uint8_t *page, size_t len)
{
	uint32_t v;
	bool ok = len == PAGE;

	for (size_t k = 0; ok && k < PAGE; k += 4) {
		memcpy(&v, page + k, 4);
		ok = v == s->want;
	}
	if (!ok)
		s->bad++;
	s->want++;
	s->back++;
}

static void on_page(uint8_t *page, size_t len, void *arg)
{
	check_page(arg, page, len);
}

static void read_back(struct rec_spill *sp, struct src *s, const struct rec_spill_mark *m)
{
	uint64_t done = 0, lost = 0;

	while (!rec_spill_read(sp, m, &done, PAGE * 3, on_page, s, &lost))
		;
	CU_ASSERT_EQUAL(done, m->len);
	CU_ASSERT_EQUAL(lost, 0);
}

static void test_spill__pages_come_back_once_in_order(void)
{
	struct rec_spill sp = { 0 };
	struct src s;
	int rounds = 0;

	src_open(&s);
	CU_ASSERT_FATAL(rec_spill_open(&sp, ".", PAGE, 64u << 20) == 0);
	/* 6 MiB in rounds of 1..37 pages, each read back: the file restarts each time */
	while (s.next < 1536) {
		struct rec_spill_mark m;
		int rc;

		src_write(&s, 1 + (size_t)(rounds++ * 7) % 37);
		rc = rec_spill_pages(&sp, s.fd[0], 1u << 20, &m);
		CU_ASSERT_EQUAL(rc, 1);		/* the source emptied */
		CU_ASSERT_EQUAL(m.len % PAGE, 0);
		CU_ASSERT_EQUAL(rec_spill_backlog(&sp), m.len);
		read_back(&sp, &s, &m);
		CU_ASSERT_EQUAL(rec_spill_backlog(&sp), 0);
	}
	CU_ASSERT_EQUAL(s.bad, 0);
	CU_ASSERT_EQUAL(s.back, s.next);
	CU_ASSERT_EQUAL(sp.nr_pages, s.next);
	CU_ASSERT_EQUAL(sp.nr_resets, (uint64_t)rounds - 1);
	CU_ASSERT(sp.file_high <= 37 * PAGE);	/* the largest backlog, not the volume */
	rec_spill_close(&sp);
	close(s.fd[0]);
	close(s.fd[1]);
}

/* Nothing read back: the spill stops at its bound, and the pages wait in the source. */
static void test_spill__bound_leaves_pages_in_the_source(void)
{
	struct rec_spill sp = { 0 };
	struct rec_spill_mark m[4];
	struct src s;
	size_t nm = 0;
	int rc = 1;

	src_open(&s);
	CU_ASSERT_FATAL(rec_spill_open(&sp, ".", PAGE, 512u << 10) == 0);
	CU_ASSERT_EQUAL(src_write(&s, 200), 200);	/* 800 KiB > the bound */
	while (nm < 4 && (rc = rec_spill_pages(&sp, s.fd[0], 1u << 20, &m[nm])) != 0)
		nm++;
	CU_ASSERT_EQUAL(rc, 0);
	nm++;
	CU_ASSERT(rec_spill_backlog(&sp) <= sp.max_backlog);
	CU_ASSERT(rec_spill_backlog(&sp) > 0);
	CU_ASSERT(sp.nr_full > 0);
	for (size_t i = 0; i < nm; i++)
		read_back(&sp, &s, &m[i]);
	/* room again: the rest follows */
	rc = rec_spill_pages(&sp, s.fd[0], 1u << 20, &m[0]);
	CU_ASSERT_EQUAL(rc, 1);
	read_back(&sp, &s, &m[0]);
	CU_ASSERT_EQUAL(s.back, 200);
	CU_ASSERT_EQUAL(s.bad, 0);
	rec_spill_close(&sp);
	close(s.fd[0]);
	close(s.fd[1]);
}

/*
 * A write that fails after three pages and 100 bytes (RLIMIT_FSIZE, as a
 * full disk would): three pages are marked, the one cut in two and those
 * still in the pipe come back whole from rec_spill_leftover(), and the
 * spill is off from then on.
 */
static void test_spill__failed_write_loses_no_page(void)
{
	struct rec_spill sp = { 0 };
	struct rec_spill_mark m;
	struct rlimit old, lim;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldsa;
	uint8_t stage[PAGE];
	struct src s;
	size_t n;
	int rc;

	src_open(&s);
	CU_ASSERT_FATAL(rec_spill_open(&sp, ".", PAGE, 64u << 20) == 0);
	sp.no_reserve = true;		/* as on a filesystem without fallocate() */
	CU_ASSERT_EQUAL(src_write(&s, 8), 8);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 3 * PAGE + 100;
	sigaction(SIGXFSZ, &ign, &oldsa);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	rc = rec_spill_pages(&sp, s.fd[0], 1u << 20, &m);
	setrlimit(RLIMIT_FSIZE, &old);
	sigaction(SIGXFSZ, &oldsa, NULL);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_FALSE(rec_spill_on(&sp));
	CU_ASSERT_EQUAL(m.len, 3 * PAGE);
	read_back(&sp, &s, &m);
	while ((n = rec_spill_leftover(&sp, stage)) > 0)
		check_page(&s, stage, n);
	CU_ASSERT_EQUAL(s.back, 8);
	CU_ASSERT_EQUAL(s.bad, 0);
	CU_ASSERT_EQUAL(rec_spill_pages(&sp, s.fd[0], 1u << 20, &m), -1);	/* off for good */
	CU_ASSERT_EQUAL(m.len, 0);
	rec_spill_close(&sp);
	close(s.fd[0]);
	close(s.fd[1]);
}

/* A marker whose pages cannot be read back: counted lost, read back as done, never a loop. */
static void test_spill__unreadable_marker_is_lost(void)
{
	struct rec_spill sp = { 0 };
	struct rec_spill_mark m = { .off = 1ull << 30, .len = 3 * PAGE };	/* past the end */
	uint64_t done = 0, lost = 0;
	struct src s;

	src_open(&s);
	CU_ASSERT_FATAL(rec_spill_open(&sp, ".", PAGE, 64u << 20) == 0);
	CU_ASSERT_TRUE(rec_spill_read(&sp, &m, &done, PAGE, on_page, &s, &lost));
	CU_ASSERT_EQUAL(done, m.len);
	CU_ASSERT_EQUAL(lost, 3 * PAGE);
	CU_ASSERT_EQUAL(s.back, 0);
	rec_spill_close(&sp);
	close(s.fd[0]);
	close(s.fd[1]);
}

void test_spill__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_spill__pages_come_back_once_in_order,
			"pages come back once and in order; the file restarts when emptied"),
		PP_TEST(test_spill__bound_leaves_pages_in_the_source,
			"at the bound pages stay in the source, and follow once there is room"),
		PP_TEST(test_spill__failed_write_loses_no_page,
			"a write failing mid-page: marked pages, then the rest whole, then off"),
		PP_TEST(test_spill__unreadable_marker_is_lost,
			"a marker past the file's end: its pages counted lost, no loop"),
	};
	pp_suite_add("spill", tests, PP_ARRAY_SIZE(tests));
}
