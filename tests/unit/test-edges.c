/* SPDX-License-Identifier: MIT */
/*
 * test-edges.c - numbers from a capture at the edges of uint64_t (common/sat.h):
 * sums that saturate and say so, times near 2^64 that have no wall clock, and
 * what `info` and the report header print for them; a time's wall clock from the
 * capture's first clock pair, however far a replay has read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/sat.h"
#include "format/format.h"
#include "tests/unit/unit.h"

#define SYNC_NS 1000000000000ull		/* capture time 1000 s ... */
#define SYNC_REAL 1767225600000000000ull	/* ... is 2026-01-01 00:00:00 UTC */

static void test_edges__sat_add(void)
{
	uint64_t v = UINT64_MAX;
	struct pp_sat_count c = { 0 };

	CU_ASSERT_TRUE(pp_sat_add(&v, 5));	/* 2^64-1 + 5 is not 4 */
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	v = UINT64_MAX - 5;
	CU_ASSERT_FALSE(pp_sat_add(&v, 5));	/* exactly 2^64-1 fits: not saturated */
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	pp_sat_count_add(&c, UINT64_MAX);
	CU_ASSERT_FALSE(c.sat);
	pp_sat_count_add(&c, 5);
	CU_ASSERT_TRUE(c.sat);
	CU_ASSERT_EQUAL(c.v, UINT64_MAX);
	pp_sat_count_add(&c, 0);
	CU_ASSERT_TRUE(c.sat);			/* once saturated, it stays so */
}

static void test_edges__time_map(void)
{
	uint64_t r;

	CU_ASSERT_TRUE(pp_time_map_ns(SYNC_NS + 5, SYNC_NS, SYNC_REAL, &r));
	CU_ASSERT_EQUAL(r, SYNC_REAL + 5);
	CU_ASSERT_TRUE(pp_time_map_ns(SYNC_NS - 5, SYNC_NS, SYNC_REAL, &r));
	CU_ASSERT_EQUAL(r, SYNC_REAL - 5);
	/* a time near 2^64 would wrap to a date before the capture: out of range */
	CU_ASSERT_FALSE(pp_time_map_ns(UINT64_MAX - 1, SYNC_NS, SYNC_REAL, &r));
	CU_ASSERT_EQUAL(r, 0);
	/* before the epoch */
	CU_ASSERT_FALSE(pp_time_map_ns(0, UINT64_MAX, 10, &r));
	CU_ASSERT_TRUE(pp_time_map_ns(UINT64_MAX, UINT64_MAX, 10, &r));
}

static void test_edges__time_str(void)
{
	struct ana_session *s = calloc(1, sizeof(*s));
	char buf[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	setenv("TZ", "UTC", 1);
	/* no clock mapping: capture time */
	CU_ASSERT_STRING_EQUAL(ana_time_str(s, UINT64_MAX, buf, sizeof(buf)), "18446744073.709551");
	s->have_sync = true;
	s->sync_perf_ns = SYNC_NS;
	s->sync_real_ns = SYNC_REAL;
	CU_ASSERT_STRING_EQUAL(ana_time_str(s, SYNC_NS + 250000, buf, sizeof(buf)),
			       "2026-01-01 00:00:00.000250");
	CU_ASSERT_STRING_EQUAL(ana_time_str(s, UINT64_MAX - 1, buf, sizeof(buf)),
			       ANA_TIME_OUT_OF_RANGE);
	uint64_t real = 1;
	CU_ASSERT_FALSE(ana_realtime_ns(s, UINT64_MAX - 1, &real));
	CU_ASSERT_EQUAL(real, 0);
	free(s);
}

/* A capture at @path begun: host @host, cpu-clock (id 1), the clock pair @sync. */
static struct ppf_writer *capture_begin(const char *path, const char *host,
					const struct ppf_time_sync *sync)
{
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_SOFTWARE, .name = "cpu-clock",
				    .selector = "cpu-clock", .filter = "", .format = "" };
	struct ppf_writer *w;

	CU_ASSERT_EQUAL_FATAL(ppf_writer_open(path, NULL, &w), 0);
	CU_ASSERT_EQUAL(ppf_write_kv(w, "hostname", host), 0);
	CU_ASSERT_EQUAL(ppf_write_event_desc(w, &d), 0);
	CU_ASSERT_EQUAL(ppf_write_time_sync(w, sync), 0);
	return w;
}

/* A capture: cpu-clock samples at 1000 s and near 2^64, losses of 2^64-1 and 5. */
static void write_edge_capture(const char *path)
{
	struct ppf_time_sync sync = { .time_ns = SYNC_NS, .realtime_ns = SYNC_REAL };
	struct ppf_writer *w = capture_begin(path, "edge", &sync);
	struct ppf_sample smp = { .time_ns = SYNC_NS + 1000, .id = 1, .pid = 7, .tid = 7,
				  .period = 1 };
	struct ppf_lost big = { .time_ns = SYNC_NS + 2000, .cpu = 0, .count = UINT64_MAX };
	struct ppf_lost small = { .time_ns = SYNC_NS + 3000, .cpu = 1, .count = 5 };

	CU_ASSERT_EQUAL(ppf_write_sample(w, &smp), 0);
	CU_ASSERT_EQUAL(ppf_write_lost(w, &big), 0);
	CU_ASSERT_EQUAL(ppf_write_lost(w, &small), 0);
	smp.time_ns = UINT64_MAX - 1000;
	CU_ASSERT_EQUAL(ppf_write_sample(w, &smp), 0);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
}

/* What cmd_info() prints on @path (stdout caught in a file). */
static char *info_of(const char *path, const char *const *args, int nr_args)
{
	char out[] = "/tmp/pp-unit-edges-out.XXXXXX";
	int fd = mkstemp(out), saved;
	const char *argv[4] = { "info" };	/* the command's name, then @args */
	struct ana_cmd_ctx ctx = { 0 };
	struct ana_session *s;
	char *text;
	long n;
	FILE *fp;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ana_session_open(path, 0, &s), 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	for (int i = 0; i < nr_args && i < 3; i++)
		argv[i + 1] = args[i];
	ctx.s = s;
	CU_ASSERT_EQUAL(cmd_info(nr_args + 1, argv, &ctx), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	ana_session_free(s);
	fp = fdopen(fd, "r");
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)n + 1);
	if (text && fread(text, 1, (size_t)n, fp) != (size_t)n)
		text[0] = '\0';
	fclose(fp);
	unlink(out);
	return text;
}

static void test_edges__info(void)
{
	char path[] = "/tmp/pp-unit-edges.XXXXXX";
	int fd = mkstemp(path);
	const char *json[] = { "--format", "json" };
	char *text;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	write_edge_capture(path);
	text = info_of(path, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* 2^64-1 + 5 lost: saturated and said so, never "lost 4" */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "lost         18446744073709551615 or more"));
	CU_ASSERT_PTR_NULL(strstr(text, "lost         4"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "cpu0=18446744073709551615, cpu1=5"));
	/* the sample near 2^64: no wall-clock date, let alone one before the capture */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "wall clock   2026-01-01 00:00:00.000001 .. "
					    ANA_TIME_OUT_OF_RANGE "\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "2025-"));
	free(text);
	text = info_of(path, json, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"lost\":18446744073709551615,\"lost_saturated\":true"));
	free(text);
	unlink(path);
}

/*
 * A capture whose clock pairs disagree by 1.3 us: the meta segment's (1000 s is SYNC_REAL)
 * and one at 1000.25 s in the events.  What a session reads up to @upto_ns: the meta, then
 * every record before that time, as a part of -j N reads what lies before its start.
 */
static struct ana_session *wall_session(const char *path, uint64_t upto_ns)
{
	struct ana_session *s;
	const struct ppf_segment *seg;
	struct ppf_record rec;

	CU_ASSERT_EQUAL_FATAL(ana_session_open(path, 0, &s), 0);
	while (ppf_reader_next(s->r, &rec, &seg) == 0 && rec.time_ns <= upto_ns)
		if (rec.type != PPF_REC_SAMPLE)
			CU_ASSERT_EQUAL(ana_session_meta(s, &rec), 0);
	return s;
}

static void test_edges__wall_anchor(void)
{
	char path[] = "/tmp/pp-unit-wall.XXXXXX";
	int fd = mkstemp(path);
	struct ppf_writer *w;
	struct ppf_time_sync meta = { .time_ns = SYNC_NS, .realtime_ns = SYNC_REAL };
	struct ppf_time_sync later = { .time_ns = SYNC_NS + 250000000,
				       .realtime_ns = SYNC_REAL + 250001300 };
	struct ppf_sample smp = { .time_ns = SYNC_NS + 100000000, .id = 1, .pid = 7, .tid = 7,
				  .period = 1 };
	/* times whose microsecond the later pair would move: before it, after it */
	static const uint64_t at[] = { SYNC_NS + 100010000, SYNC_NS + 300000000 };
	static const char *const want[] = { "2026-01-01 00:00:00.100010",
					    "2026-01-01 00:00:00.300000" };
	struct ana_session *head, *whole;
	char a[64], b[64];

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	setenv("TZ", "UTC", 1);
	w = capture_begin(path, "wall", &meta);
	CU_ASSERT_EQUAL(ppf_write_sample(w, &smp), 0);
	CU_ASSERT_EQUAL(ppf_write_time_sync(w, &later), 0);
	smp.time_ns = SYNC_NS + 400000000;
	CU_ASSERT_EQUAL(ppf_write_sample(w, &smp), 0);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	/* a part that ends before the later pair, and one pass (or the last part) past it */
	head = wall_session(path, SYNC_NS + 200000000);
	whole = wall_session(path, UINT64_MAX);
	for (size_t i = 0; i < PP_ARRAY_SIZE(at); i++) {
		CU_ASSERT_STRING_EQUAL(ana_time_str(head, at[i], a, sizeof(a)), want[i]);
		CU_ASSERT_STRING_EQUAL(ana_time_str(whole, at[i], b, sizeof(b)), want[i]);
	}
	ana_session_free(head);
	ana_session_free(whole);
	unlink(path);
}

void test_edges__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_edges__sat_add, "sums of counts stop at 2^64-1 and say that they did"),
		PP_TEST(test_edges__time_map, "a clock mapping that would wrap is out of range"),
		PP_TEST(test_edges__time_str, "a time near 2^64 prints as out of range, not a date"),
		PP_TEST(test_edges__info, "info on losses of 2^64-1 and 5 and a sample near 2^64: "
					  "saturated, said so, no wrapped date"),
		PP_TEST(test_edges__wall_anchor, "a time's wall clock is the capture's first "
						 "clock pair's, however far a replay has read"),
	};

	pp_suite_add("edges", tests, PP_ARRAY_SIZE(tests));
}
