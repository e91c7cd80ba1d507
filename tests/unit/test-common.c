/* SPDX-License-Identifier: MIT */
/*
 * test-common.c - the small building blocks: errors, units, options, buffers,
 * the u64 map, tables, command-line words, sorted-list lookups and whole writes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/io.h"
#include "common/options.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/units.h"
#include "tests/unit/unit.h"

static void test_common__strerror(void)
{
	CU_ASSERT_STRING_EQUAL(pp_strerror(PP_EBAD_MAGIC), "not a pp capture (bad magic)");
	CU_ASSERT_EQUAL(PP_EBAD_MAGIC, -10000);
	CU_ASSERT_STRING_EQUAL(pp_strerror(-2), strerror(2));
	CU_ASSERT_STRING_EQUAL(pp_strerror(0), "success");
}

static void test_common__parse_time(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(pp_parse_time("10ms", 1, &v), 0);
	CU_ASSERT_EQUAL(v, 10000000);
	CU_ASSERT_EQUAL(pp_parse_time("1.5s", 1, &v), 0);
	CU_ASSERT_EQUAL(v, 1500000000);
	CU_ASSERT_EQUAL(pp_parse_time("250us", 1, &v), 0);
	CU_ASSERT_EQUAL(v, 250000);
	CU_ASSERT_EQUAL(pp_parse_time("7", 1000000, &v), 0);
	CU_ASSERT_EQUAL(v, 7000000);
	CU_ASSERT_EQUAL(pp_parse_time("12ns", 1000, &v), 0);
	CU_ASSERT_EQUAL(v, 12);
	CU_ASSERT_EQUAL(pp_parse_time("10xs", 1, &v), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_parse_time("", 1, &v), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_parse_time("ms", 1, &v), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_parse_time("99999999999999999999s", 1, &v), PP_ERANGE);
}

static void test_common__parse_size_list(void)
{
	uint64_t v;
	int *l;
	size_t n;

	CU_ASSERT_EQUAL(pp_parse_size("64M", &v), 0);
	CU_ASSERT_EQUAL(v, 64ull << 20);
	CU_ASSERT_EQUAL(pp_parse_size("4096", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(pp_parse_size("1GiB", &v), 0);
	CU_ASSERT_EQUAL(v, 1ull << 30);
	CU_ASSERT_EQUAL(pp_parse_size("x", &v), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_parse_list("3,0-2,2", 0, &l, &n), 0);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT(n == 4 && l[0] == 0 && l[3] == 3);
	free(l);
	CU_ASSERT_EQUAL(pp_parse_list("1,a", 0, &l, &n), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_parse_list("5", 4, &l, &n), PP_ERANGE);
	CU_ASSERT_EQUAL(pp_parse_list("3-1", 0, &l, &n), PP_ERANGE);
}

static void test_common__options(void)
{
	bool g = false, b = true;
	int v = 0;
	uint64_t t = 0;
	const char *o = NULL, *d = NULL;
	struct pp_strlist e = { 0 };
	const struct pp_option inc[] = {
		PP_OPT_COUNT('v', "verbose", &v, "more output"),
		PP_OPT_END(),
	};
	const struct pp_option opts[] = {
		PP_OPT_BOOL('g', "call-graph", &g, "stacks"),
		PP_OPT_BOOL(0, "banner", &b, "banner"),
		PP_OPT_TIME(0, "than", &t, 1, "threshold"),
		PP_OPT_STRING('o', "output", &o, "file", "output"),
		PP_OPT_STRING_OPTARG(0, "detail", &d, "how", "all", "detail"),
		PP_OPT_STRLIST('e', "event", &e, "ev", "events"),
		PP_OPT_INCLUDE(inc),
		PP_OPT_END(),
	};
	const char *argv[] = { "-gv", "pos1", "--than=2ms", "-e", "a", "-eb", "--no-banner",
			       "--detail", "--out", "x", "-v", ",", "next", "--than", "1" };
	char err[128];
	int n = pp_parse_options(15, argv, opts, PP_PARSE_STOP_AT_COMMA, err, sizeof(err));

	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT(g && !b && v == 2 && t == 2000000);
	CU_ASSERT(o && !strcmp(o, "x"));
	CU_ASSERT(d && !strcmp(d, "all"));
	CU_ASSERT(e.nr == 2 && !strcmp(e.v[0], "a") && !strcmp(e.v[1], "b"));
	CU_ASSERT_STRING_EQUAL(argv[0], "pos1");
	CU_ASSERT_STRING_EQUAL(argv[1], ",");
	pp_strlist_release(&e);

	const char *bad1[] = { "--nope" };
	CU_ASSERT(pp_parse_options(1, bad1, opts, 0, err, sizeof(err)) < 0);
	CU_ASSERT(strstr(err, "--nope") != NULL);
	const char *bad2[] = { "--than", "3xs" };
	CU_ASSERT(pp_parse_options(2, bad2, opts, 0, err, sizeof(err)) < 0);
	CU_ASSERT(strstr(err, "3xs") != NULL);
	const char *bad3[] = { "-o" };
	CU_ASSERT(pp_parse_options(1, bad3, opts, 0, err, sizeof(err)) < 0);
	const char *help[] = { "-h" };
	CU_ASSERT_EQUAL(pp_parse_options(1, help, opts, 0, err, sizeof(err)), PP_OPT_HELP);
}

static void test_common__buf(void)
{
	struct pp_buf b = PP_BUF_INIT;

	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "");
	for (int i = 0; i < 1000; i++)
		pp_buf_addf(&b, "%d,", i);
	CU_ASSERT(b.len > 3000 && b.data[b.len] == '\0');
	pp_buf_reset(&b);
	pp_buf_add_json_str(&b, "a\"b\\\n\x01");
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "\"a\\\"b\\\\\\n\\u0001\"");
	/* valid UTF-8 passes; a byte that is not UTF-8 (cut or stray) is \u00XX */
	pp_buf_reset(&b);
	pp_buf_add_json_str(&b, "\xc3\xa9\xe2\x82\xac\xff\xe2\x82");
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "\"\xc3\xa9\xe2\x82\xac\\u00ff\\u00e2\\u0082\"");
	pp_buf_release(&b);
}

/* Random inserts and deletes against a plain array model. */
static void test_common__u64map(void)
{
	struct pp_u64map m = PP_U64MAP_INIT;
	static uintptr_t model[4096];
	unsigned seed = 1, bad = 0;

	memset(model, 0, sizeof(model));
	for (int i = 0; i < 200000; i++) {
		seed = seed * 1103515245 + 12345;
		uint64_t k = (seed >> 8) % 4096;
		if ((seed >> 4) % 3 == 0) {
			void *v = pp_u64map_del(&m, k);
			if ((uintptr_t)v != model[k])
				bad++;
			model[k] = 0;
		} else {
			pp_u64map_put(&m, k, (void *)(uintptr_t)(i + 1));
			model[k] = (uintptr_t)(i + 1);
		}
	}
	size_t n = 0;
	for (uint64_t k = 0; k < 4096; k++) {
		if ((uintptr_t)pp_u64map_get(&m, k) != model[k])
			bad++;
		n += model[k] != 0;
	}
	size_t it = 0, seen = 0;
	uint64_t key;
	void *val;
	while (pp_u64map_next(&m, &it, &key, &val))
		seen++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(n, m.nr);
	CU_ASSERT_EQUAL(seen, n);
	pp_u64map_release(&m);
}

static char *table_out(struct pp_table *t, enum pp_table_format f)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&buf, &sz);

	pp_table_print(t, fp, f, f == PP_TABLE_JSON ? "rows" : NULL);
	fclose(fp);
	return buf;
}

static void test_common__table(void)
{
	struct pp_table *t = pp_table_new();
	char *s;

	pp_table_col(t, "comm", NULL, PP_COL_LEFT, 0);
	pp_table_col(t, "calls", NULL, 0, 8);
	pp_table_col(t, "total(us)", "total_us", 0, 0);
	pp_table_row(t);
	pp_table_str(t, "bash");
	pp_table_u64(t, 12);
	pp_table_num(t, "%.3f", 3.5);
	pp_table_row(t);
	pp_table_str(t, "a,\"b\"");
	pp_table_u64(t, 7);
	pp_table_num(t, "%.3f", 1234.25);
	s = table_out(t, PP_TABLE_TEXT);
	CU_ASSERT_STRING_EQUAL(s, "comm     calls total(us)\n"
				  "----- -------- ---------\n"
				  "bash        12     3.500\n"
				  "a,\"b\"        7  1234.250\n");
	free(s);
	s = table_out(t, PP_TABLE_JSON);
	CU_ASSERT_STRING_EQUAL(s, "{\"rows\":[{\"comm\":\"bash\",\"calls\":12,\"total_us\":3.500},"
				  "{\"comm\":\"a,\\\"b\\\"\",\"calls\":7,\"total_us\":1234.250}]}\n");
	free(s);
	s = table_out(t, PP_TABLE_CSV);
	CU_ASSERT_STRING_EQUAL(s, "comm,calls,total_us\nbash,12,3.500\n\"a,\"\"b\"\"\",7,1234.250\n");
	free(s);
	pp_table_reset(t);
	CU_ASSERT_EQUAL(pp_table_nr_rows(t), 0);
	pp_table_free(t);
}

static void test_common__argv(void)
{
	const char *words[] = { "task-state", "-e", "sched:sched_switch/prev_pid==1 && comm~\"b*\"/stack/",
				"it's", "", "a\\b", "x y" };
	struct pp_buf b = PP_BUF_INIT;
	char **v;
	int n;

	pp_argv_join(&b, 7, words);
	CU_ASSERT_EQUAL_FATAL(pp_argv_split(pp_buf_str(&b), &v, &n), 0);
	CU_ASSERT_EQUAL(n, 7);
	for (int i = 0; i < n && i < 7; i++)
		CU_ASSERT_STRING_EQUAL(v[i], words[i]);
	pp_argv_free(v);
	CU_ASSERT_EQUAL(pp_argv_split("a \"b c\" 'd\"e' f\\ g", &v, &n), 0);
	CU_ASSERT(n == 4 && !strcmp(v[1], "b c") && !strcmp(v[2], "d\"e") && !strcmp(v[3], "f g"));
	pp_argv_free(v);
	CU_ASSERT_EQUAL(pp_argv_split("a 'b", &v, &n), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_argv_split("a \\", &v, &n), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_argv_split("   ", &v, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	pp_argv_free(v);
	pp_buf_release(&b);
}

static void test_common__list_has(void)
{
	int *v = NULL;
	size_t nr = 0;

	CU_ASSERT_EQUAL_FATAL(pp_parse_list("9,0,2-5,7,100", 0, &v, &nr), 0);
	for (int64_t x = -3; x < 110; x++) {
		bool want = x == 0 || (x >= 2 && x <= 5) || x == 7 || x == 9 || x == 100;

		CU_ASSERT_EQUAL(pp_list_has(v, nr, x), want);
	}
	CU_ASSERT_FALSE(pp_list_has(v, nr, 4294967295ll));	/* an unknown tid, (uint32_t)-1 */
	CU_ASSERT_FALSE(pp_list_has(v, 0, 0));
	free(v);
}

static void test_common__writev_full(void)
{
	char path[] = "/tmp/pp-unit-io-XXXXXX", back[64] = "";
	char a[] = "hello ", b[] = "world";
	struct iovec iov[4] = { { a, 0 }, { a, 6 }, { b, 0 }, { b, 5 } };
	struct rlimit old, lim;
	size_t written = 99;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	/* empty pieces anywhere are skipped */
	CU_ASSERT_EQUAL(pp_writev_full(fd, iov, 4, &written), 0);
	CU_ASSERT_EQUAL(written, 11);
	CU_ASSERT_EQUAL(pread(fd, back, sizeof(back) - 1, 0), 11);
	CU_ASSERT_STRING_EQUAL(back, "hello world");
	written = 99;
	CU_ASSERT_EQUAL(pp_writev_full(fd, iov, 0, &written), 0);
	CU_ASSERT_EQUAL(written, 0);

	/* a write cut short by the file size limit: what got in is counted, then -EFBIG */
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 16;
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
	iov[0] = (struct iovec){ a, 6 };
	iov[1] = (struct iovec){ b, 5 };
	written = 99;
	CU_ASSERT_EQUAL(pp_writev_full(fd, iov, 2, &written), -EFBIG);	/* 11 + 11 > 16 */
	CU_ASSERT_EQUAL(written, 5);
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	close(fd);

	/* a bad descriptor: the error, nothing written */
	iov[0] = (struct iovec){ a, 6 };
	written = 99;
	CU_ASSERT_EQUAL(pp_writev_full(-1, iov, 1, &written), -EBADF);
	CU_ASSERT_EQUAL(written, 0);
}

void test_common__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_common__strerror, "error codes map to text, errno included"),
		PP_TEST(test_common__parse_time, "times parse with suffixes and reject junk"),
		PP_TEST(test_common__parse_size_list, "sizes and cpu lists parse and bound"),
		PP_TEST(test_common__options, "option tables parse every form and report errors"),
		PP_TEST(test_common__buf, "buffers grow and escape JSON"),
		PP_TEST(test_common__u64map, "the u64 map agrees with a model under churn"),
		PP_TEST(test_common__table, "tables print as aligned text, JSON and CSV"),
		PP_TEST(test_common__argv, "command lines split and join like the shell's words"),
		PP_TEST(test_common__list_has, "lookups in sorted lists from pp_parse_list"),
		PP_TEST(test_common__writev_full, "whole writes: empty pieces, a cut write, errors"),
	};
	pp_suite_add("common", tests, PP_ARRAY_SIZE(tests));
}
