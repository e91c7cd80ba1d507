/* SPDX-License-Identifier: MIT */
/*
 * test-record.c - pp-record's library parts that need no kernel: the ordered
 * merge, tracefs format fields and the filter check.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "record/perf/filter.h"
#include "record/ring/merge.h"
#include "tests/tools/tp-format.h"
#include "tests/unit/unit.h"

struct emitted {
	uint64_t t[64];
	int q[64];
	size_t n;
};

static int collect(const struct rec_mev *e, void *arg)
{
	struct emitted *em = arg;

	if (em->n < 64) {
		em->t[em->n] = e->time_ns;
		em->q[em->n] = e->cpu;
		em->n++;
	}
	return 0;
}

static void push(struct rec_merge *m, size_t q, uint64_t t)
{
	struct {
		struct perf_event_header h;
		uint64_t v;
	} rec = { { PERF_RECORD_LOST, 0, sizeof(rec) }, t };

	rec_merge_push(m, q, t, -1, (int)q, &rec.h);
}

static void test_record__merge_orders_across_queues(void)
{
	struct rec_merge m;
	struct emitted em = { .n = 0 };

	rec_merge_init(&m, 3);
	push(&m, 0, 1);
	push(&m, 0, 5);
	push(&m, 0, 9);
	push(&m, 1, 3);
	push(&m, 1, 7);
	push(&m, 2, 2);
	CU_ASSERT_EQUAL(rec_merge_flush(&m, 6, collect, &em), 0);
	CU_ASSERT_EQUAL(em.n, 4);
	CU_ASSERT(em.t[0] == 1 && em.t[1] == 2 && em.t[2] == 3 && em.t[3] == 5);
	CU_ASSERT_EQUAL(m.nr_queued, 2);
	push(&m, 2, 8);
	CU_ASSERT_EQUAL(rec_merge_flush(&m, UINT64_MAX, collect, &em), 0);
	CU_ASSERT_EQUAL(em.n, 7);
	CU_ASSERT(em.t[4] == 7 && em.t[5] == 8 && em.t[6] == 9);
	CU_ASSERT_EQUAL(m.nr_late, 0);
	rec_merge_release(&m);
}

static void test_record__merge_sorts_within_a_queue_and_counts_late(void)
{
	struct rec_merge m;
	struct emitted em = { .n = 0 };

	rec_merge_init(&m, 1);
	push(&m, 0, 10);
	push(&m, 0, 30);
	push(&m, 0, 20);	/* out of order inside one ring */
	CU_ASSERT_EQUAL(rec_merge_flush(&m, 25, collect, &em), 0);
	CU_ASSERT_EQUAL(em.n, 2);
	CU_ASSERT(em.t[0] == 10 && em.t[1] == 20);
	push(&m, 0, 15);	/* older than what was emitted: late, still emitted */
	CU_ASSERT_EQUAL(m.nr_late, 1);
	CU_ASSERT_EQUAL(rec_merge_flush(&m, UINT64_MAX, collect, &em), 0);
	CU_ASSERT_EQUAL(em.n, 4);
	CU_ASSERT(em.t[2] == 15 && em.t[3] == 30);
	rec_merge_release(&m);
}

static void test_record__merge_reuses_memory(void)
{
	struct rec_merge m;
	struct emitted em;
	size_t cap;

	rec_merge_init(&m, 2);
	for (uint64_t round = 0; round < 200; round++) {
		em.n = 0;
		for (uint64_t i = 0; i < 500; i++)
			push(&m, i & 1, round * 1000 + i);
		CU_ASSERT_EQUAL(rec_merge_flush(&m, round * 1000 + 499, collect, &em), 0);
		CU_ASSERT_EQUAL(m.nr_queued, 0);
	}
	cap = m.max_chunks;
	CU_ASSERT(cap <= 3);
	CU_ASSERT_EQUAL(m.nr_late, 0);
	rec_merge_release(&m);
}

/* rec_merge_bytes() counts the chunks holding queued records, newest the latest push */
static void test_record__merge_bytes_and_newest(void)
{
	struct rec_merge m;
	struct emitted em = { .n = 0 };
	size_t chunk, per, full;

	rec_merge_init(&m, 2);
	rec_merge_bound(&m, 1u << 20);		/* 128 KiB chunks for two queues */
	chunk = rec_merge_chunk_size(&m);
	CU_ASSERT_EQUAL(chunk, 128u << 10);
	per = chunk / 48;
	CU_ASSERT_EQUAL(rec_merge_bytes(&m), 0);
	/* 48 bytes a record here (32 of struct rec_mev, 16 of record): 3 chunks' worth */
	for (uint64_t i = 0; i < 3 * per; i++)
		push(&m, 0, 100 + i);
	push(&m, 1, 50);
	CU_ASSERT_EQUAL(m.q[0].newest, 100 + 3 * per - 1);
	CU_ASSERT_EQUAL(m.q[1].newest, 50);
	full = rec_merge_bytes(&m);
	CU_ASSERT(full >= 4 * chunk && full <= 5 * chunk);
	/* emitting a chunk's records gives its memory back; the current chunks stay */
	CU_ASSERT_EQUAL(rec_merge_flush(&m, 100 + per, collect, &em), 0);
	CU_ASSERT(rec_merge_bytes(&m) < full);
	CU_ASSERT_EQUAL(rec_merge_flush(&m, UINT64_MAX, collect, &em), 0);
	CU_ASSERT(rec_merge_bytes(&m) <= 2 * chunk);
	CU_ASSERT_EQUAL(m.nr_free + rec_merge_bytes(&m) / chunk, m.nr_chunks);
	CU_ASSERT_EQUAL(m.q[0].newest, 100 + 3 * per - 1);	/* emitting does not move it */
	rec_merge_release(&m);
}

static const char sched_switch_format[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	TP_COMMON_FIELDS
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static void test_record__format_fields(void)
{
	struct pp_field *f;
	size_t nr;

	CU_ASSERT_EQUAL(rec_format_fields(sched_switch_format, &f, &nr), 0);
	CU_ASSERT_EQUAL_FATAL(nr, 8);
	CU_ASSERT_STRING_EQUAL(f[3].name, "common_pid");
	CU_ASSERT(f[3].is_signed && f[3].offset == 4 && f[3].size == 4);
	CU_ASSERT_STRING_EQUAL(f[4].name, "prev_comm");
	CU_ASSERT(f[4].is_array && f[4].is_string && f[4].elem_size == 1 && f[4].size == 16);
	CU_ASSERT_STRING_EQUAL(f[6].name, "name");
	CU_ASSERT(f[6].is_data_loc && f[6].is_string && !f[6].is_array);
	CU_ASSERT_STRING_EQUAL(f[7].name, "ptr");
	CU_ASSERT(f[7].is_pointer && f[7].size == 8);
	rec_format_fields_free(f, nr);
}

static void test_record__filter_check(void)
{
	char msg[256];

	CU_ASSERT_EQUAL(rec_filter_check("prev_pid == 1", sched_switch_format, msg, sizeof(msg)),
			0);
	CU_ASSERT_EQUAL(rec_filter_check("prev_comm ~ \"ba*\" && common_pid > 2",
					 sched_switch_format, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(rec_filter_check("prev_pid ==", sched_switch_format, msg, sizeof(msg)),
			PP_ESYNTAX);
	CU_ASSERT(strstr(msg, "prev_pid ==") != NULL);
	CU_ASSERT_EQUAL(rec_filter_check("nosuch == 1", sched_switch_format, msg, sizeof(msg)),
			PP_EUNKNOWN_FIELD);
	CU_ASSERT(strstr(msg, "nosuch") != NULL);
	/* the kernel's own syntax the shared compiler lacks: the kernel decides */
	CU_ASSERT_EQUAL(rec_filter_check("ptr.function == kfree", sched_switch_format, msg,
					 sizeof(msg)), 0);
	/* no format: only the syntax is checked */
	CU_ASSERT_EQUAL(rec_filter_check("anything == 2", NULL, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(rec_filter_check("(2 == 2", NULL, msg, sizeof(msg)), PP_ESYNTAX);
}

void test_record__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_record__merge_orders_across_queues,
			"the merge emits records of several rings in time order up to the horizon"),
		PP_TEST(test_record__merge_sorts_within_a_queue_and_counts_late,
			"records out of order inside a ring are sorted; older than emitted is late"),
		PP_TEST(test_record__merge_reuses_memory,
			"a steady stream through the merge does not grow its buffers"),
		PP_TEST(test_record__merge_bytes_and_newest,
			"the merge counts the memory of its queued records and each queue's newest time"),
		PP_TEST(test_record__format_fields,
			"tracefs format text gives names, offsets, sizes, arrays, strings, pointers"),
		PP_TEST(test_record__filter_check,
			"filters are refused for syntax and unknown fields, kernel-only syntax passes"),
	};
	pp_suite_add("record", tests, PP_ARRAY_SIZE(tests));
}
