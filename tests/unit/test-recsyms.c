/* SPDX-License-Identifier: MIT */
/*
 * test-recsyms.c - rec_symbols, the recorder's map tracker: which binaries a recorded address
 * makes it write, across an exec.
 *
 * The binary is the test program itself (it keeps its .symtab), mapped at a made-up address
 * in a made-up process; the tracker's statistics say what each hit did.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "record/symbols/symbols.h"
#include "tests/unit/unit.h"

#define EXE_AT 0x400000ull
#define EXE_LEN 0x10000ull

static char tmpdir[] = "/tmp/pp-recsyms-XXXXXX";

/* A tracker writing to a capture in a fresh directory, and the test binary's path. */
static struct ppf_writer *open_capture(char *path, size_t sz, char *exe)
{
	struct ppf_writer_opts o = { 0 };
	struct ppf_writer *w = NULL;
	ssize_t n;

	if (!mkdtemp(tmpdir))
		return NULL;
	n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sz, "%s/syms.ppcap", tmpdir);
	return ppf_writer_open(path, &o, &w) ? NULL : w;
}

static uint64_t stat_of(const struct rec_symbols *sy, int which)
{
	struct rec_symbols_stats st;

	rec_symbols_get_stats(sy, &st);
	return which ? st.nr_unmapped : st.nr_dsos + st.nr_failed;
}

/*
 * A sample taken inside execve has a pc in the old image: until the first map after the new
 * image's vDSO (the last one execve makes) its binary is written (the analyzer names the
 * frame from it); after, or in another process, the address is in no map.
 */
static void test_recsyms__exec_window(void)
{
	char path[256], exe[PATH_MAX];
	struct ppf_writer *w = open_capture(path, sizeof(path), exe);
	struct rec_symbols *sy = rec_symbols_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	rec_symbols_map(sy, 7, EXE_AT, EXE_LEN, 0, exe, NULL, 0);
	rec_symbols_exec(sy, 7);
	rec_symbols_map(sy, 7, 0x800000, 0x1000, 0, "/nonexistent/new-image", NULL, 0);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 7, EXE_AT + 0x100), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 0), 1);	/* the old image's binary, written */
	CU_ASSERT_EQUAL(stat_of(sy, 1), 0);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 7, EXE_AT + 0x200), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 0), 1);	/* once */
	rec_symbols_map(sy, 7, 0x900000, 0x2000, 0, "[vdso]", NULL, 0);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 7, EXE_AT + 0x100), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 1), 0);	/* execve fills the new stack after it */
	rec_symbols_map(sy, 7, 0xa00000, 0x1000, 0, "/nonexistent/libc", NULL, 0);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 7, EXE_AT + 0x100), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 1), 1);	/* the loader's map: the exec is over */

	/* a second process whose exec's window is still open, then ended by its exit */
	rec_symbols_map(sy, 8, EXE_AT, EXE_LEN, 0, "/nonexistent/old-image", NULL, 0);
	rec_symbols_exec(sy, 8);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 8, EXE_AT + 0x100), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 0), 2);	/* tried: a file that is not there fails */
	CU_ASSERT_EQUAL(stat_of(sy, 1), 1);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 8, EXE_AT + EXE_LEN), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 1), 2);	/* past the old map's end */
	rec_symbols_exit(sy, 8);
	CU_ASSERT_EQUAL(rec_symbols_hit(sy, w, 8, EXE_AT + 0x100), 0);
	CU_ASSERT_EQUAL(stat_of(sy, 1), 3);

	rec_symbols_free(sy);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	unlink(path);
	rmdir(tmpdir);
}

void test_recsyms__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_recsyms__exec_window,
			"a pc inside execve writes the old image's binary, until exec is over"),
	};

	pp_suite_add("recsyms", tests, sizeof(tests) / sizeof(tests[0]));
}
