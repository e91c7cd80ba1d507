/* SPDX-License-Identifier: MIT */
/*
 * test-state-latency.c - the latency engine's state section (docs/state-format.md "The
 * latency engine") against hand-written bytes: two ranges of one capture of
 * `multi-trace -e t:a -e t:b -k k`, the first ending with an open t:a of key 7, the second
 * starting with the t:b that closes it; their merge is the one pair more, written as the
 * spec says, whatever the order; damaged sections are refused by name.
 *
 * The IDENT, SOURCES and CONTEXT sections come from the core's encoder (test-state-spec.c
 * checks those bytes); only the ANALYZER sections are written by hand here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/state/internal.h"
#include "tests/tools/tp-format.h"
#include "tests/unit/unit.h"

#define SEC(lit) (const uint8_t *)(lit), sizeof(lit) - 1

/* A tracepoint "t:NAME" of id @id with one field, int k at offset 8. */
static char *format_of(const char *name, unsigned id)
{
	char *f = NULL;

	CU_ASSERT_FATAL(asprintf(&f, "name: %s\nID: %u\nformat:\n" TP_COMMON_FIELDS "\n"
			"\tfield:int k;\toffset:8;\tsize:4;\tsigned:1;\n\n"
			"print fmt: \"k=%%d\", REC->k\n", name, id) > 0);
	return f;
}

/*
 * A state file at @path: `multi-trace -e t:a -e t:b -k k` over the range [@start, @end] of
 * one capture, its ANALYZER section @az.
 */
static void state_file(const char *path, uint64_t start, uint64_t end, uint64_t first,
		       uint64_t last, const uint8_t *az, size_t az_sz)
{
	static const char *const argv[] = { "multi-trace", "--event=t:a", "--event=t:b",
					    "--key=k", NULL };
	struct ana_state st = { 0 };
	struct pp_buf b = PP_BUF_INIT;
	char err[256];

	st.analyzer = strdup("multi-trace");
	st.version = 2;
	st.argc = 4;
	st.argv = calloc(5, sizeof(*st.argv));
	for (int i = 0; i < 4; i++)
		st.argv[i] = strdup(argv[i]);
	st.options = strdup("--event=t:a --event=t:b --key=k");
	st.nr_matches = 2;
	st.matches = calloc(2, sizeof(*st.matches));
	st.matches[0] = (struct ana_smatch){ 0, strdup("t:a") };
	st.matches[1] = (struct ana_smatch){ 1, strdup("t:b") };
	st.nr_srcs = 1;
	st.srcs = calloc(1, sizeof(*st.srcs));
	st.srcs[0] = (struct ana_ssrc){ .created_ns = 5, .fingerprint = 42, .host = strdup("h"),
					.path = strdup("p"), .range_start_ns = start,
					.range_end_ns = end, .first_ns = first, .last_ns = last };
	st.ctx.nr_kv = 1;
	st.ctx.kv = calloc(1, sizeof(*st.ctx.kv));
	st.ctx.kv[0] = (struct ana_skv){ strdup("hostname"), strdup("h") };
	st.ctx.nr_events = 2;
	st.ctx.events = calloc(2, sizeof(*st.ctx.events));
	for (unsigned i = 0; i < 2; i++) {
		const char *name = i ? "t:b" : "t:a";
		st.ctx.events[i] = (struct ana_sevent){ .id = i + 1, .kind = 1,
							.name = strdup(name),
							.selector = strdup(name),
							.filter = strdup(""),
							.format = format_of(name + 2, i + 1) };
	}
	ana_state_encode(&st, az, az_sz, &b);
	CU_ASSERT_EQUAL(ana_state_write_file(path, &b, err, sizeof(err)), 0);
	ana_state_release(&st);
	pp_buf_release(&b);
}

/* A t:a (tp 0) or t:b (tp 1) of key and pid 7 at time 100 (0x64) or 150 (0x96 0x01). */
#define RAW7 "\x0c" "\x01\x00\x00\x00" "\x07\x00\x00\x00" "\x07\x00\x00\x00"
#define EV_A7 "\x00\x07\x00" "\x64" "\x00\x07\x07\x01" RAW7 "\x00"
#define EV_B7 "\x01\x07\x00" "\x96\x01" "\x00\x07\x07\x01" RAW7 "\x00"

/* [0, 200]: a t:a of key 7 at 100 left open (its head closed by its backup). */
static const char sec_a[] =
	"\x64"					/* recent 100 */
	"\x00"					/* no rows */
	"\x01"					/* one source: */
	"\x64" "\x00" "\x00"			/* recent 100, no loss, no loss lines */
	"\x01" "\x07\x01\x00"			/* head of key 7: closed, no events */
	"\x01" EV_A7				/* one tail */
	"\x00";					/* no running tasks known */
/*
 * [201, end]: the t:b of key 7 at 150 finds nothing; a pair of key 9, 30 ns (pair 1: the
 * engine's pair 0 is t:a's "unpaired", pair 1 t:a => t:b).
 */
static const char sec_b[] =
	"\xfa\x01"				/* recent 250 */
	"\x01" "\x00\x01" "\x01\x1e\x1e\x1e\x00\x00" "\x01" "\x1e"	/* row (0, pair 1 a=>b): 30 */
	"\x01"
	"\xfa\x01" "\x00" "\x00"
	"\x02" "\x07\x01\x01" "\x00" EV_B7	/* head of key 7: its t:b (looked back) */
	"\x09\x01\x00"				/* head of key 9: closed by its backup */
	"\x00"					/* no tails */
	"\x00";					/* no running tasks known */
/* The merge: the pair of 50 ns joins the row; one source, the heads of both. */
static const char sec_ab[] =
	"\xfa\x01"
	"\x01" "\x00\x01" "\x02\x50\x1e\x32\x00\x00" "\x01" "\x1e\x32"	/* 30 and 50, ascending */
	"\x01"
	"\xfa\x01" "\x00" "\x00"
	"\x02" "\x07\x01\x00" "\x09\x01\x00"
	"\x00" "\x00";

/* Run @fn(argc, argv) with stdout and stderr in files; Return: its status, the texts in @out/@err. */
static int run(ana_cmd_fn *fn, const char *const *argv, char **out, char **err)
{
	char po[] = "/tmp/pp-unit-stlat-out.XXXXXX", pe[] = "/tmp/pp-unit-stlat-err.XXXXXX";
	int fo = mkstemp(po), fe = mkstemp(pe), so, se, rc, argc = 0;
	char **texts[2] = { out, err };
	int fds[2] = { fo, fe };

	CU_ASSERT_FATAL(fo >= 0 && fe >= 0);
	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = fn(argc, (const char **)argv, &(struct ana_cmd_ctx){ 0 });
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	for (int i = 0; i < 2; i++) {
		off_t n = lseek(fds[i], 0, SEEK_END);
		*texts[i] = calloc(1, (size_t)n + 1);
		CU_ASSERT(pread(fds[i], *texts[i], (size_t)n, 0) == n);
		close(fds[i]);
	}
	unlink(po);
	unlink(pe);
	return rc;
}

/* The ANALYZER section of the state file at @path, compared with @want. */
static void expect_section(const char *path, const uint8_t *want, size_t n)
{
	struct ana_state *st = NULL;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(ana_state_load(path, &st, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(st->az_size, n);
	CU_ASSERT(st->az_size == n && !memcmp(st->az_data, want, n));
	CU_ASSERT(st->nr_srcs == 1 && !st->srcs[0].range_start_ns && !st->srcs[0].range_end_ns);
	ana_state_free(st);
}

/* /tmp/pp-unit-stlat-PID-NAME.state: the caller frees. */
static char *tmp_state(const char *name)
{
	char *p = NULL;

	CU_ASSERT_FATAL(asprintf(&p, "/tmp/pp-unit-stlat-%d-%s.state", (int)getpid(), name) > 0);
	return p;
}

static void test_state_latency__join(void)
{
	char *a = tmp_state("a"), *b = tmp_state("b"), *ab = tmp_state("ab"), *ba = tmp_state("ba");
	char *out, *err;

	state_file(a, 0, 200, 100, 100, SEC(sec_a));
	state_file(b, 201, 0, 150, 250, SEC(sec_b));
	CU_ASSERT_EQUAL(run(cmd_merge, (const char *[]){ "merge", a, b, "-o", ab, NULL }, &out,
			    &err), 0);
	free(out);
	free(err);
	expect_section(ab, SEC(sec_ab));
	CU_ASSERT_EQUAL(run(cmd_merge, (const char *[]){ "merge", b, a, "-o", ba, NULL }, &out,
			    &err), 0);
	free(out);
	free(err);
	expect_section(ba, SEC(sec_ab));
	/* the report: one row of two pairs, 30 and 50 ns (the 50 ns one crossed the cut) */
	CU_ASSERT_EQUAL(run(cmd_report, (const char *[]){ "report", ab, "--format", "csv", NULL },
			    &out, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "time,start,end,calls,total_us,min_us,p50_us,p95_us,"
					   "p99_us,max_us\n"));
	CU_ASSERT_STRING_EQUAL(out, "time,start,end,calls,total_us,min_us,p50_us,p95_us,p99_us,"
			       "max_us\n0.000000,a,b,2,0.080,0.030,0.030,0.050,0.050,0.050\n");
	free(out);
	free(err);
	/* the first range alone: its open t:a is no pair, and no row */
	CU_ASSERT_EQUAL(run(cmd_report, (const char *[]){ "report", a, "--format", "csv", NULL },
			    &out, &err), 0);
	CU_ASSERT_PTR_NULL(strstr(out, ",a,b,"));
	free(out);
	free(err);
	char *v[] = { a, b, ab, ba };
	for (int i = 0; i < 4; i++) {
		unlink(v[i]);
		free(v[i]);
	}
}

/* A second range whose section is @sec: its report is refused, naming @what. */
static void expect_bad(const uint8_t *sec, size_t n, const char *what)
{
	char *path = tmp_state("bad");
	char *out, *err;

	state_file(path, 201, 0, 150, 250, sec, n);
	CU_ASSERT_NOT_EQUAL(run(cmd_report, (const char *[]){ "report", path, NULL }, &out, &err),
			    0);
	if (!strstr(err, what))
		fprintf(stderr, "\n  expected '%s' in: %s", what, err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	free(out);
	free(err);
	unlink(path);
	free(path);
}

static void test_state_latency__refusals(void)
{
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x00"
		       "\x01" "\x05\x07\x00\x64\x00\x07\x07\x01" RAW7 "\x00"), "event 5 of 2");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x02" "\x09\x01\x00" "\x07\x01\x00"
		       "\x00"), "heads not in ascending key order");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x01" "\x07\x01\x02" "\x00" EV_B7
		       "\x00" EV_B7 "\x00" "\x00"), "head of key 7: state 1 with 2 events");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x01" "\x07\x00\x00" "\x00"
		       "\x00"), "head of key 7: state 0");	/* open: undecided wakeups only */
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x01" "\x07\x01\x01" "\x01" EV_B7
		       "\x00" "\x00"), "head of key 7: an undecided event that is no wakeup");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x01" "\x07\x01\x01" "\x04" EV_B7
		       "\x00" "\x00"), "head of key 7: entry kind 4");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x00" "\x00" "\x02" "\x03\x07"
		       "\x01\x07"), "running task 7 on cpu 1");	/* CPUs ascending */
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x00" "\x02" EV_A7 EV_A7),
		   "two of one key");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x02\x00\x00\x00"), "lost flag 2");
	expect_bad(SEC("\x01" "\x01" "\x00\x05" "\x01\x1e\x1e\x1e\x00\x00" "\x01" "\x1e" "\x00"),
		   "latency row 0: pair 5 of 2");
	expect_bad(SEC("\x01" "\x00" "\x02" "\x01\x00\x00\x00\x00" "\x01\x00\x00\x00\x00"),
		   "source 1: the state has 1");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x00" "\x01" "\x07\x01\x01"
		       "\x00" "\x01\x09\x00\x96\x01\x00\x07\x07\x01" RAW7 "\x00" "\x00"),
		   "head of key 7: an event of key 9");
	expect_bad(SEC("\x01" "\x00" "\x01" "\x01\x00\x02" "\x05\x00\x01" "\x03\x00\x01" "\x00\x00"),
		   "losses not in time order");
}

void test_state_latency__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_state_latency__join, "two ranges by hand: the pair across the cut, the spec's bytes, either order"),
		PP_TEST(test_state_latency__refusals, "events, heads, tails, rows, sources and losses out of bounds: refused by name"),
	};

	pp_suite_add("state_latency", tests, PP_ARRAY_SIZE(tests));
}
