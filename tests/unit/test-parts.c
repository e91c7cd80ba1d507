/* SPDX-License-Identifier: MIT */
/*
 * test-parts.c - reading a capture in parts (pp-analyze -j N): where it is cut
 * (analyze/parts.c), the segment list with and without an index, and windows
 * of the reader (format/reader.c) whose records add up to one reader's.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "format/format.h"
#include "tests/unit/unit.h"

#define NR 400

/* A capture in a memfd: metadata, NR samples, a COMM every 30 and a LOST every 70. */
static int capture(uint32_t seg_max)
{
	struct ppf_writer_opts o = { .seg_max_raw = seg_max };
	struct ppf_writer *w;
	uint8_t raw[16] = { 1, 2, 3 };
	int fd = memfd_create("parts", 0);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	CU_ASSERT(ppf_write_kv(w, "hostname", "h") == 0);
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_TRACEPOINT, .name = "a:b",
				    .selector = "a:b", .filter = "", .format = "" };
	CU_ASSERT(ppf_write_event_desc(w, &d) == 0);
	for (unsigned i = 0; i < NR; i++) {
		struct ppf_sample s = { .time_ns = 1000000 + i * 1000ull, .id = 1, .cpu = i % 3,
					.pid = 10 + i % 4, .tid = 10 + i % 4, .period = 1,
					.raw = raw, .raw_sz = sizeof(raw) };
		raw[0] = (uint8_t)i;
		CU_ASSERT(ppf_write_sample(w, &s) == 0);
		if (i % 30 == 0)
			CU_ASSERT(ppf_write_comm(w, &(struct ppf_comm){ s.time_ns, s.pid, s.tid, 0,
								       "x" }) == 0);
		if (i % 70 == 0)
			CU_ASSERT(ppf_write_lost(w, &(struct ppf_lost){ s.time_ns, 1, 0, i + 1 }) == 0);
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
	return fd;
}

static struct ppf_reader *open_fd(int fd)
{
	struct ppf_reader *r;

	CU_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	return r;
}

/* One line per record: "S time tid raw0" or "C time" or "L time count". */
static void add_rec(char *out, size_t sz, const struct ppf_record *rec)
{
	size_t n = strlen(out);

	if (rec->type == PPF_REC_SAMPLE)
		snprintf(out + n, sz - n, "S %llu %u %u\n", (unsigned long long)rec->time_ns,
			 rec->u.sample.tid, rec->u.sample.raw[0]);
	else if (rec->type == PPF_REC_COMM)
		snprintf(out + n, sz - n, "C %llu\n", (unsigned long long)rec->time_ns);
	else if (rec->type == PPF_REC_LOST)
		snprintf(out + n, sz - n, "L %llu %llu\n", (unsigned long long)rec->time_ns,
			 (unsigned long long)rec->u.lost.count);
}

/* The records of @fd in the window [from, to): samples in @smp, the rest in @side. */
static void read_window(int fd, uint64_t from, uint64_t to, char *smp, char *side, size_t sz)
{
	struct ppf_reader *r = open_fd(fd);
	struct ppf_record rec;

	smp[0] = side[0] = '\0';
	CU_ASSERT_FATAL(ppf_reader_set_window(r, from, to) == 0);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		add_rec(rec.type == PPF_REC_SAMPLE ? smp : side, sz, &rec);
	CU_ASSERT(ppf_reader_stats(r)->nr_corrupt == 0);
	ppf_reader_close(r);
}

static void test_segments_index_or_scan(void)
{
	int fd = capture(600);
	struct ppf_reader *r = open_fd(fd);
	struct ppf_index_entry *a, *b;
	size_t na, nb;

	CU_ASSERT(ppf_reader_info(r)->has_index);
	CU_ASSERT_FATAL(ppf_reader_segments(r, &a, &na) == 0);
	ppf_reader_close(r);
	CU_ASSERT(na > 10);
	/* without the index (a trailer cut short): the headers give the same list */
	off_t end = lseek(fd, 0, SEEK_END);
	for (size_t i = 0; i < na; i++)
		CU_ASSERT(a[i].kind != PPF_SEG_INDEX);
	CU_ASSERT_FATAL(ftruncate(fd, end - 1) == 0);
	r = open_fd(fd);
	CU_ASSERT(!ppf_reader_info(r)->has_index);
	CU_ASSERT_FATAL(ppf_reader_segments(r, &b, &nb) == 0);
	ppf_reader_close(r);
	CU_ASSERT_FATAL(nb == na);
	for (size_t i = 0; i < na; i++) {
		CU_ASSERT(a[i].offset == b[i].offset);
		CU_ASSERT(a[i].kind == b[i].kind);
		CU_ASSERT(a[i].first_ns == b[i].first_ns && a[i].last_ns == b[i].last_ns);
		CU_ASSERT(a[i].nr_records == b[i].nr_records);
	}
	/* a damaged header is stepped over: the list goes on at the next good one */
	uint8_t z = 0;
	CU_ASSERT_FATAL(pwrite(fd, &z, 1, (off_t)a[3].offset) == 1);
	r = open_fd(fd);
	free(b);
	CU_ASSERT_FATAL(ppf_reader_segments(r, &b, &nb) == 0);
	ppf_reader_close(r);
	CU_ASSERT(nb == na - 1);
	CU_ASSERT(nb > 4 && b[3].offset == a[4].offset);
	free(a);
	free(b);
	close(fd);
}

/* Every cut between EVENTS segments: the two windows hold one reader's records. */
static void test_windows_add_up(void)
{
	int fd = capture(500);
	struct ppf_reader *r = open_fd(fd);
	struct ppf_index_entry *segs;
	size_t nsegs, sz = 64 * 1024, cuts = 0;
	char *all = calloc(1, sz), *allside = calloc(1, sz), *s1 = calloc(1, sz),
	     *d1 = calloc(1, sz), *s2 = calloc(1, sz), *d2 = calloc(1, sz), *cat = calloc(1, sz);

	CU_ASSERT_FATAL(ppf_reader_segments(r, &segs, &nsegs) == 0);
	ppf_reader_close(r);
	read_window(fd, 0, 0, all, allside, sz);
	CU_ASSERT(strlen(all) > 0);
	for (size_t i = 1; i < nsegs; i++) {
		if (segs[i].kind != PPF_SEG_EVENTS)
			continue;
		uint64_t x = segs[i].offset;
		read_window(fd, 0, x, s1, d1, sz);
		read_window(fd, x, 0, s2, d2, sz);
		/* samples: the first window's then the second's, as one reader's */
		snprintf(cat, sz, "%s%s", s1, s2);
		CU_ASSERT(!strcmp(cat, all));
		/* the second window's side band is the whole capture's: its prefix skimmed */
		CU_ASSERT(!strcmp(d2, allside));
		/* the first's ends before the cut's first time */
		CU_ASSERT(!strncmp(d1, allside, strlen(d1)));
		cuts++;
	}
	CU_ASSERT(cuts > 5);
	free(segs);
	free(all);
	free(allside);
	free(s1);
	free(d1);
	free(s2);
	free(d2);
	free(cat);
	close(fd);
}

static void test_window_refusals(void)
{
	int fd = capture(0);
	struct ppf_reader *r = open_fd(fd);

	CU_ASSERT(ppf_reader_set_window(r, 100, 50) == -EINVAL);
	CU_ASSERT(ppf_reader_set_window(r, 0, 0) == 0);
	ppf_reader_close(r);
	close(fd);
}

/* An events segment @i of @nr records over [first, last] at offset 1000 * (i + 1). */
static struct ppf_index_entry ev(size_t i, uint64_t first, uint64_t last, uint32_t nr)
{
	return (struct ppf_index_entry){ .offset = 1000 * (i + 1), .kind = PPF_SEG_EVENTS,
					 .seq = i, .first_ns = first, .last_ns = last,
					 .nr_records = nr };
}

/* Parts are contiguous in offsets and times, and cut only where times do not touch. */
static void check_parts(const struct ppf_index_entry *segs, size_t nr, const struct ana_part *p,
			size_t np, uint64_t t0, uint64_t t1)
{
	CU_ASSERT(p[0].start_ns == t0);
	CU_ASSERT(p[np - 1].end_ns == t1);
	CU_ASSERT(p[np - 1].to_off == 0);
	for (size_t k = 0; k + 1 < np; k++) {
		CU_ASSERT(p[k].to_off == p[k + 1].from_off);
		CU_ASSERT(p[k].end_ns + 1 == p[k + 1].start_ns);
		CU_ASSERT(p[k + 1].start_ns > p[k].start_ns);
		size_t j;
		for (j = 0; j < nr && segs[j].offset != p[k + 1].from_off; j++)
			;
		CU_ASSERT_FATAL(j > 0 && j < nr);
		CU_ASSERT(segs[j].kind == PPF_SEG_EVENTS);
		CU_ASSERT(segs[j].first_ns == p[k + 1].start_ns);
		CU_ASSERT(segs[j - 1].last_ns < segs[j].first_ns);
	}
}

static void test_split(void)
{
	struct ppf_index_entry segs[64];
	struct ana_part p[16];
	size_t n = 0, np;

	segs[n++] = (struct ppf_index_entry){ .offset = 64, .kind = PPF_SEG_META };
	for (size_t i = 0; i < 40; i++)
		segs[n] = ev(n, 100 * i + 1, 100 * i + 90, 1000), n++;
	/* one job, or nowhere to cut: one part, the whole range */
	np = ana_parts_split(segs, n, 1, 0.3, 0, 0, p);
	CU_ASSERT(np == 1 && p[0].from_off == 0 && p[0].to_off == 0);
	/* equal parts when skimming is free */
	np = ana_parts_split(segs, n, 4, 0, 0, 0, p);
	CU_ASSERT_FATAL(np == 4);
	check_parts(segs, n, p, np, 0, 0);
	CU_ASSERT(p[1].start_ns == 1001 && p[2].start_ns == 2001 && p[3].start_ns == 3001);
	/* with a skim cost, later parts are smaller: part 0 the largest */
	np = ana_parts_split(segs, n, 2, 0.3, 0, 0, p);
	CU_ASSERT_FATAL(np == 2);
	check_parts(segs, n, p, np, 0, 0);
	/* 1/(2 - 0.3) of 40 segments: about 23.5 in part 0 */
	CU_ASSERT(p[1].start_ns >= 2201 && p[1].start_ns <= 2501);
	/* more jobs than segments: at most one part a segment */
	np = ana_parts_split(segs, n, 16, 0, 0, 0, p);
	CU_ASSERT(np == 16);
	check_parts(segs, n, p, np, 0, 0);
	/* times that touch are never cut: segments 10..29 share their edges */
	for (size_t i = 11; i <= 30; i++)
		segs[i].first_ns = segs[i - 1].last_ns;
	np = ana_parts_split(segs, n, 4, 0, 0, 0, p);
	check_parts(segs, n, p, np, 0, 0);
	for (size_t k = 1; k < np; k++)
		CU_ASSERT(p[k].start_ns < segs[11].first_ns || p[k].start_ns > segs[30].first_ns - 1 ||
			  p[k].from_off == segs[31].offset);
	/* a --time range: parts inside it, the first from the range's first segment */
	np = ana_parts_split(segs, n, 3, 0, 3050, 3950, p);
	CU_ASSERT_FATAL(np >= 2);
	check_parts(segs, n, p, np, 3050, 3950);
	CU_ASSERT(p[0].from_off == segs[31].offset);
	/* no events at all: one part */
	np = ana_parts_split(segs, 1, 4, 0.3, 0, 0, p);
	CU_ASSERT(np == 1);
}

static void test_split_shared(void)
{
	struct ppf_index_entry segs[200];
	struct ana_part p[64];
	size_t n = 0, np;
	uint64_t sum = 0, half = 0;

	segs[n++] = (struct ppf_index_entry){ .offset = 64, .kind = PPF_SEG_META };
	for (size_t i = 0; i < 120; i++)
		segs[n] = ev(n, 100 * i + 1, 100 * i + 90, 1000), n++;
	/* 2 threads, 5 parts each: every record in one part, the halves equal */
	np = ana_parts_split_shared(segs, n, 2, 5, 0, 0, p);
	CU_ASSERT_FATAL(np == 10);
	check_parts(segs, n, p, np, 0, 0);
	for (size_t k = 0; k < np; k++) {
		sum += p[k].records;
		if (k < 5)
			half += p[k].records;
	}
	CU_ASSERT(sum == 120000);
	CU_ASSERT(half >= 59000 && half <= 61000);
	/* within a thread's share the parts shrink: the largest first, small ones last */
	for (size_t k = 0; k < np; k++)
		if (k % 5)
			CU_ASSERT(p[k].records <= p[k - 1].records);
	CU_ASSERT(p[4].records * 3 < p[0].records);
	/* one part a thread: the equal split */
	np = ana_parts_split_shared(segs, n, 4, 1, 0, 0, p);
	CU_ASSERT_FATAL(np == 4);
	for (size_t k = 0; k < np; k++)
		CU_ASSERT(p[k].records == 30000);
	/* more parts than segments: at most one a segment, all records counted */
	np = ana_parts_split_shared(segs, 11, 4, 16, 0, 0, p);
	CU_ASSERT(np == 10);
	check_parts(segs, 11, p, np, 0, 0);
	sum = 0;
	for (size_t k = 0; k < np; k++)
		sum += p[k].records;
	CU_ASSERT(sum == 10000);
	/* a --time range */
	np = ana_parts_split_shared(segs, n, 2, 3, 3050, 6950, p);
	CU_ASSERT(np == 6);
	check_parts(segs, n, p, np, 3050, 6950);
}

/* The checksums one reader found good, seen by another: lookups by offset. */
/* How many parts a thread: segments and records decide, the binaries' tables weigh in. */
static void test_per_job(void)
{
	enum { NSEGS = 800 };
	static struct ppf_index_entry segs[NSEGS + 2];
	size_t n = 0;

	for (size_t i = 0; i < NSEGS; i++)	/* 800 events segments of 500 records */
		segs[n] = ev(n, 100 * i + 1, 100 * i + 90, 500), n++;
	/* no digests: each part skims what is before it, one a thread */
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, n, 2, false), 1);
	/* digests, no binaries' tables: six a thread, as 800 segments hold 6 x 2 x 64 */
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, n, 2, true), 6);
	/* fewer segments: 64 a part at least (256 segments, 2 threads: 2 parts a thread) */
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, 256, 2, true), 2);
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, 100, 2, true), 1);
	/* 400,000 records and a DWARF capture's 7,400 USYMS records: one part a thread */
	segs[n++] = (struct ppf_index_entry){ .offset = 1, .kind = PPF_SEG_USYMS,
					      .nr_records = 7400 };
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, n, 2, true), 1);
	/* small tables, many records: the segments decide again (400,000 / (25 x 2 x 2,000) = 4) */
	segs[n - 1].nr_records = 2000;
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, n, 2, true), 4);
	segs[n - 1].nr_records = 10;
	CU_ASSERT_EQUAL(ana_parts_per_job(segs, n, 2, true), 6);
}

static void test_checks_shared(void)
{
	struct ppf_index_entry segs[4] = { { .offset = 64 }, { .offset = 500 }, { .offset = 900 },
					   { .offset = 4000 } };
	struct ppf_checks *c = ppf_checks_new(segs, 4);

	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(!ppf_checks_passed(c, 500));
	ppf_checks_pass(c, 500);
	ppf_checks_pass(c, 777);	/* not a segment: ignored */
	CU_ASSERT(ppf_checks_passed(c, 500));
	CU_ASSERT(!ppf_checks_passed(c, 777) && !ppf_checks_passed(c, 900));
	CU_ASSERT(!ppf_checks_passed(c, 64) && !ppf_checks_passed(c, 5000));
	ppf_checks_free(c);
	ppf_checks_free(NULL);
}

/* The window [@from, end) of @fd read with its digests and @c: side band in @side. */
static const struct ppf_read_stats *read_digested(int fd, uint64_t from,
						  const struct ppf_index_entry *segs, size_t nsegs,
						  struct ppf_checks *c, char *side, size_t sz,
						  struct ppf_read_stats *st)
{
	struct ppf_reader *r = open_fd(fd);
	struct ppf_record rec;

	side[0] = '\0';
	CU_ASSERT_FATAL(ppf_reader_set_window(r, from, 0) == 0);
	CU_ASSERT_FATAL(ppf_reader_set_digests(r, segs, nsegs) == 0);
	if (c)
		ppf_reader_share_checks(r, c);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		if (rec.type != PPF_REC_SAMPLE)
			add_rec(side, sz, &rec);
	*st = *ppf_reader_stats(r);
	ppf_reader_close(r);
	return st;
}

/*
 * A part's reader takes the segments before its window from their digests without
 * reading them once another reader found them whole: shown by damaging one afterwards,
 * which a reader on its own finds (and loses its side band) and a sharing one never reads.
 */
static void test_windows_shared_checks(void)
{
	int fd = capture(500);
	struct ppf_reader *r = open_fd(fd);
	struct ppf_index_entry *segs;
	struct ppf_read_stats st;
	size_t nsegs, sz = 64 * 1024, x = 0, hit = 0;
	char *all = calloc(1, sz), *allside = calloc(1, sz), *side = calloc(1, sz);
	struct ppf_checks *c;

	CU_ASSERT_FATAL(ppf_reader_segments(r, &segs, &nsegs) == 0);
	ppf_reader_close(r);
	c = ppf_checks_new(segs, nsegs);
	CU_ASSERT_FATAL(c != NULL);
	read_window(fd, 0, 0, all, allside, sz);
	/* the cut: an events segment late in the file */
	for (size_t i = nsegs; i-- > 1 && !x;)
		if (segs[i].kind == PPF_SEG_EVENTS && i > nsegs / 2)
			x = i;
	CU_ASSERT_FATAL(x > 0);
	/* alone, and sharing checks nobody made yet: read and checked, from the digests */
	read_digested(fd, segs[x].offset, segs, nsegs, NULL, side, sz, &st);
	CU_ASSERT_STRING_EQUAL(side, allside);
	CU_ASSERT(st.digest_segments > 0);
	read_digested(fd, segs[x].offset, segs, nsegs, c, side, sz, &st);
	CU_ASSERT_STRING_EQUAL(side, allside);
	/* an events segment before the cut with side band in it, noted as whole */
	for (size_t i = 1; i < x && !hit; i++)
		if (segs[i].kind == PPF_SEG_EVENTS && ppf_checks_passed(c, segs[i].offset) &&
		    segs[i].nr_records > 1)
			hit = i;
	CU_ASSERT_FATAL(hit > 0);
	/* damaged since: its last payload byte */
	uint64_t end = segs[hit + 1].offset - 1;
	uint8_t b;
	CU_ASSERT_FATAL(pread(fd, &b, 1, (off_t)end) == 1);
	b ^= 0x55;
	CU_ASSERT_FATAL(pwrite(fd, &b, 1, (off_t)end) == 1);
	/* sharing: not read again, the same side band from its digest */
	read_digested(fd, segs[x].offset, segs, nsegs, c, side, sz, &st);
	CU_ASSERT_STRING_EQUAL(side, allside);
	/* alone: read, found damaged (not reported before the window), its digest not used */
	read_digested(fd, segs[x].offset, segs, nsegs, NULL, side, sz, &st);
	CU_ASSERT(strcmp(side, allside) != 0);
	ppf_checks_free(c);
	free(segs);
	free(all);
	free(allside);
	free(side);
	close(fd);
}

/* Segments a reader is told to pass over are not read: the kernel symbols a part borrows. */
static void test_pass_over(void)
{
	struct ppf_writer_opts o = { 0 };
	struct ppf_writer *w;
	int fd = memfd_create("ksyms", 0);
	struct ppf_record rec;
	struct ppf_reader *r;
	unsigned nk = 0, ns = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT(ppf_write_ksym(w, &(struct ppf_ksym){ 0xffffffff81000000ull + 16 * i, 'T',
							 "fn", "" }) == 0);
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_TRACEPOINT, .name = "a:b",
				    .selector = "a:b", .filter = "", .format = "" };
	CU_ASSERT(ppf_write_event_desc(w, &d) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 5, .id = 1, .pid = 1,
							    .tid = 1, .period = 1 }) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	for (int pass = 0; pass < 2; pass++) {
		r = open_fd(fd);
		if (pass)
			ppf_reader_pass_over(r, 1u << PPF_SEG_KSYMS, UINT64_MAX);
		nk = ns = 0;
		while (ppf_reader_next(r, &rec, NULL) == 0) {
			nk += rec.type == PPF_REC_KSYM;
			ns += rec.type == PPF_REC_SAMPLE;
		}
		CU_ASSERT(ns == 1);
		CU_ASSERT(nk == (pass ? 0u : 3u));
		CU_ASSERT(ppf_reader_stats(r)->nr_corrupt == 0);
		ppf_reader_close(r);
	}
	close(fd);
}

void test_parts__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_split, "parts: cuts only where times do not touch, contiguous, sized"),
		PP_TEST(test_segments_index_or_scan, "parts: the segment list from the index = from the headers"),
		PP_TEST(test_windows_add_up, "parts: two windows of a reader hold one reader's records"),
		PP_TEST(test_window_refusals, "parts: a window ending before it starts is refused"),
		PP_TEST(test_split_shared, "parts: shared out, each thread's share in shrinking parts"),
		PP_TEST(test_per_job, "parts: a thread's count from segments, records and binaries' tables"),
		PP_TEST(test_checks_shared, "parts: the checksums one reader found good, by offset"),
		PP_TEST(test_windows_shared_checks, "parts: a segment another reader checked is not read again"),
		PP_TEST(test_pass_over, "parts: segments passed over are not read (borrowed kernel symbols)"),
	};
	pp_suite_add("parts", tests, PP_ARRAY_SIZE(tests));
}
