/* SPDX-License-Identifier: MIT */
/*
 * test-evformat.c - the checks of a tracefs format text before libtraceevent parses it
 * (ana_format_unsafe(), ana_print_fmt_unsafe(), analyze/evformat.c): every format of this
 * machine's tracefs and the kernel's own shapes pass; hostile texts (the fuzzers' findings
 * among them) do not.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/buf.h"
#include "tests/tools/tp-format.h"
#include "tests/unit/unit.h"

#define HDR "name: ev\nID: 7\nformat:\n" TP_COMMON_FIELDS "\n"
#define F_NEXT "\tfield:pid_t next_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
#define F_COMM "\tfield:char next_comm[16];\toffset:12;\tsize:16;\tsigned:0;\n\n"

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!fp)
		return NULL;
	do {
		if (n + 4096 > cap)
			buf = realloc(buf, cap = cap * 2 + 8192);
		if (!buf)
			break;
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
	} while (got);
	fclose(fp);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/*
 * Every format of the running kernel's tracefs passes, and its print fmt too but for the
 * statement expressions "({ ... })" libtraceevent never reads (kvmmmu's, dma_map_sg's)
 * (skipped without tracefs access).
 */
static void test_evformat__tracefs(void)
{
	static const char *const pats[] = { "/sys/kernel/tracing/events/*/*/format",
					    "/sys/kernel/debug/tracing/events/*/*/format" };
	size_t nr = 0, bad = 0;
	char why[128];
	bool kernel;
	glob_t g;

	for (size_t k = 0; k < 2 && !nr; k++) {
		if (glob(pats[k], 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *text = slurp(g.gl_pathv[i]);

			if (!text || !*text) {
				free(text);
				continue;
			}
			nr++;
			if (ana_format_unsafe(text, why, sizeof(why)) ||
			    (ana_print_fmt_unsafe(text, why, sizeof(why), &kernel) && !kernel)) {
				if (bad++ < 10)
					fprintf(stderr, "    refused %s: %s\n", g.gl_pathv[i], why);
			}
			free(text);
		}
		globfree(&g);
	}
	if (!nr)
		fprintf(stderr, "    no tracefs formats readable here: only the built-in ones checked\n");
	else
		fprintf(stderr, "    %zu tracefs formats checked\n", nr);
	CU_ASSERT_EQUAL(bad, 0);
}

/* Shapes the kernel writes: REC->x, (REC)->x, "->" in strings, no "signed:" (old kernels). */
static void test_evformat__kernel_shapes(void)
{
	static const char *const ok[] = {
		HDR F_NEXT F_COMM "print fmt: \"next_pid=%d\", REC->next_pid\n",
		HDR F_NEXT "print fmt: \"%d -> %d\", (REC)->next_pid, REC->next_pid\n",
		HDR F_NEXT "print fmt: \"a->b=%d\", ((REC->next_pid) & 1)\n",
		HDR "\tfield:int x;\toffset:8;\tsize:4;\n\nprint fmt: \"%d\", REC->x\n",
		HDR F_COMM "print fmt: \"%s\", __get_str(next_comm)\n",
		/* indexes, conditionals, tables, casts, as kernel formats have them */
		HDR F_NEXT "print fmt: \"%s\", REC->next_pid ? \"a\" : \"b\"\n",
		HDR F_NEXT "print fmt: \"%s\", __print_symbolic(REC->next_pid, { 0, \"a\" }, "
		"{ 1, \"b\" })\n",
		HDR F_NEXT F_COMM "print fmt: \"%d %d\", REC->next_comm[0], REC->next_comm[1]\n",
		HDR F_NEXT F_COMM "print fmt: \"%d\", REC->next_pid ? REC->next_comm[1] : 0\n",
		HDR F_NEXT F_COMM "print fmt: \"%d\", REC->next_comm[0] ? 1 : -REC->next_pid\n",
		HDR F_NEXT F_COMM "print fmt: \"%d\", REC->next_comm[0] + 1, (u64)REC->next_pid << 2\n",
	};
	char why[128];
	bool kernel;

	for (size_t i = 0; i < PP_ARRAY_SIZE(ok); i++) {
		const char *r = ana_format_unsafe(ok[i], why, sizeof(why));
		if (!r)
			r = ana_print_fmt_unsafe(ok[i], why, sizeof(why), &kernel);
		if (r)
			fprintf(stderr, "    refused ok[%zu]: %s\n", i, r);
		CU_ASSERT_PTR_NULL(r);
	}
}

/* Hostile texts: each refused, and the reason says what. */
static void test_evformat__hostile(void)
{
	static const struct { const char *text, *why; } bad[] = {
		/* fuzz-state: "x->y" of a name that is not REC: libtraceevent read NULL */
		{ HDR F_NEXT F_COMM "print fmt: \"%s\", next_pid->next_comm\n", "'->' after" },
		{ HDR F_NEXT "print fmt: \"%d\", XREC->next_pid\n", "'->' after" },
		{ HDR F_NEXT "print fmt: \"%d\", (REC->next_pid)->x\n", "'->' after" },
		/* fuzz-state: a field line pasted into __print_flags' list */
		{ HDR F_NEXT "print fmt: \"%s\", __print_flags(REC->next_pid, \"|\", { 0x0_comm[16];\toffs "
		  "{ 1, \"S\" })\n", "tab" },
		{ HDR F_NEXT "print fmt: \"%s\", __print_flags(REC->next_pid, \"|\", { 1, \"S\" )\n",
		  "closes nothing" },
		{ HDR F_NEXT "print fmt: \"%d\", (REC->next_pid\n", "not closed" },
		/* fuzz-pipeline: a field line cut in its declaration */
		{ HDR "\tfield:unsign\tsigned:1;\n\nprint fmt: \"\"\n", "field" },
		{ HDR F_NEXT "print fmt: \"%d, REC->next_pid\n", "not closed" },
		{ HDR F_NEXT "print fmt: \"\x1b[2J\", REC->next_pid\n", "byte 0x1b" },
		{ HDR "\tfield:int x;\toffset:8;\tsize:99999999;\tsigned:1;\n", "field" },
		{ HDR "\tfield:int common_type;\toffset:4;\tsize:4;\tsigned:1;\n", "common_type" },
		{ HDR "\tfield:int x[9;\toffset:8;\tsize:4;\tsigned:1;\n", "[size]" },
		/* fuzz-format: "08" is 0 to libtraceevent (strtoul base 0), 8 to us */
		{ HDR "\tfield:char c[16];\toffset:40;\tsize:08;\tsigned:0;\n", "without its size" },
		{ HDR "\tfield:int x;\toffset:08;\tsize:4;\tsigned:0;\n", "without its offset" },
		/* fuzz-format: a 2-byte __data_loc made libtraceevent read 4 GB */
		{ HDR "\tfield:__data_loc char[] comm;\toffset:8;\tsize:2;\tsigned:0;\n", "size 2, not 4" },
		{ HDR "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\tgarbage\n", "no part of" },
	};
	char why[128];

	for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++) {
		const char *r = ana_format_unsafe(bad[i].text, why, sizeof(why));
		CU_ASSERT_PTR_NOT_NULL(r);
		if (r && !strstr(r, bad[i].why)) {
			fprintf(stderr, "    bad[%zu]: '%s' does not say '%s'\n", i, r, bad[i].why);
			CU_FAIL("the reason");
		}
	}
}

/*
 * Print fmts libtraceevent 1.7 misreads: after an index or a conditional, an operator it
 * has no priority for went to a right-hand side never made (a NULL dereference, found
 * by tests/fuzz/fuzz-state; each of these crashed it).  And (wide[]) print fmts it pads
 * without bound (tests/fuzz/fuzz-format).  Each is refused for its reason, and the
 * fields stay (ana_format_unsafe() passes them).
 */
static void test_evformat__print_fmt_hostile(void)
{
#define PF(args) HDR F_NEXT F_COMM "print fmt: \"%d\", " args "\n"
	static const struct { const char *text, *why; } bad[] = {
		{ PF("REC->next_pid[1] = 2"), "'=' after an index" },
		{ PF("REC->next_pid ? 1 : 2 = 3"), "operator '='" },
		{ PF("REC->next_pid[1][2]"), "'[' after an index" },
		{ PF("REC->next_pid ? 1 : b[1]"), "'[' after a conditional" },
		{ PF("REC->next_pid ? 1 : f(x)[1]"), "'[' after a conditional" },
		{ PF("REC->next_pid[-c ? 1 : 2]"), "'?' inside '['" },
		{ PF("REC->next_pid ? 1 : y REC->next_pid"), "REC after the name 'y'" },
		{ PF("__print_symbolic(REC->next_pid, { REC->next_comm[1] }, { 1, \"a\" })"),
		  "'}' after an index" },
		{ PF("__print_symbolic(REC->next_pid, { c ? 1 : 2 }, { 1, \"a\" })"), "'?' inside '{'" },
		{ PF("REC->next_pid[1] . x"), "'.' after an index" },
		{ PF("REC->next_pid ? 1 : 2 . x"), "operator '.'" },
		{ PF("REC->next_pid[1] += 2"), "'+=' after an index" },
		{ PF("REC->next_pid += 2"), "operator '+='" },
		{ PF("(REC->next_comm[REC->next_pid ? 1 : 2])"), "'?' inside '['" },
		{ PF("REC->next_pid ? 1 : 2 { 3 }"), "'{' after '2'" },
		{ PF("({ int x = 1; x; })"), "operator '='" },
		{ PF("REC->next_pid / REC->next_pid"), "divides" },
		{ PF("REC->next_pid ? \"a\n\" % \"\" : \"b\""), "divides" },
		{ PF("REC->next_pid\n % REC->next_pid"), "divides" },
		{ PF("REC->next_pid / 1 / 2"), "divides by more than a number ('/' follows)" },
		{ PF("REC->next_pid % 4 * 0"), "('*' follows)" },
		{ PF("REC->next_pid / 1gLx"), "divides by '1gLx'" },
		{ PF("REC->next_pid / 00"), "divides by '00'" },
		{ PF("REC->next_pid / sizeof(int) * 0"), "('*' follows)" },
		{ PF("REC->next_pid / sizeof : 7"), "'sizeof' without its '('" },
		{ PF("~ ~ ~ ~ ~REC->next_pid"), "more than 4 unary" },
		{ PF("-~!-~REC->next_pid"), "more than 4 unary" },
		/* fuzz-format: a tab ends libtraceevent's string; the rest is code ('_ % lZZ') */
		{ PF("\"a\t,_%lZZ\""), "tab in a string" },
		{ PF("REC->next_pid ? \"a\t)\" : \"b\""), "tab in a string" },
	};
	/* fuzz-format: padding without bound */
	static const struct { const char *text, *why; } wide[] = {
		{ HDR F_NEXT "print fmt: \"%*d\", REC->next_pid, 1\n", "width taken from an argument ('%*d')" },
		{ HDR F_NEXT "print fmt: \"a\" \"%-*s\", REC->next_pid, \"x\"\n", "('%-*s')" },
		{ HDR F_NEXT "print fmt: \"%99999d\", REC->next_pid\n", "width of 5 digits" },
		{ HDR F_NEXT "print fmt: \"%.123456s\", \"x\"\n", "precision of 6 digits" },
		{ PF("__print_symbolic(REC->nope, { 1, \"a\" })"), "('nope')" },
	};
	char why[128];
	bool kernel;
	/* chains of "+ 1": 1025 in one argument refused; 1024, and 1000 in each of two, not */
	static const int chains[][2] = { { 1025, 0 }, { 1024, 0 }, { 1000, 1000 } };
	for (size_t c = 0; c < PP_ARRAY_SIZE(chains); c++) {
		struct pp_buf b = { 0 };
		pp_buf_adds(&b, HDR F_NEXT "print fmt: \"%d %d\", 1");
		for (int arg = 0; arg < 2; arg++) {
			for (int i = 0; i < chains[c][arg]; i++)
				pp_buf_adds(&b, " + 1");
			pp_buf_adds(&b, arg ? "\n" : ", 1");
		}
		const char *r = ana_print_fmt_unsafe(b.data, why, sizeof(why), &kernel);
		if (c) {
			CU_ASSERT_PTR_NULL(r);
		} else {
			CU_ASSERT(r && strstr(r, "over 1024 operators"));
		}
		pp_buf_release(&b);
	}
#undef PF

	for (size_t i = 0; i < PP_ARRAY_SIZE(bad) + PP_ARRAY_SIZE(wide); i++) {
		const char *text = i < PP_ARRAY_SIZE(bad) ? bad[i].text : wide[i - PP_ARRAY_SIZE(bad)].text;
		const char *want = i < PP_ARRAY_SIZE(bad) ? bad[i].why : wide[i - PP_ARRAY_SIZE(bad)].why;
		CU_ASSERT_PTR_NULL(ana_format_unsafe(text, why, sizeof(why)));
		const char *r = ana_print_fmt_unsafe(text, why, sizeof(why), &kernel);
		CU_ASSERT_PTR_NOT_NULL(r);
		if (r && !strstr(r, want)) {
			fprintf(stderr, "    bad[%zu]: '%s' does not say '%s'\n", i, r, want);
			CU_FAIL("the reason");
		} else if (!r) {
			fprintf(stderr, "    bad[%zu] passed: %s\n", i, strstr(text, "print fmt:"));
		}
	}
}

void test_evformat__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_evformat__tracefs, "every format of this machine's tracefs passes"),
		PP_TEST(test_evformat__kernel_shapes, "REC->, (REC)->, arrows in strings, no signed:"),
		PP_TEST(test_evformat__hostile, "hostile format texts refused, each for its reason"),
		PP_TEST(test_evformat__print_fmt_hostile,
			"print fmts libtraceevent misreads refused, each for its reason"),
	};

	pp_suite_add("evformat", tests, PP_ARRAY_SIZE(tests));
}
