/* SPDX-License-Identifier: MIT */
/*
 * test-flame.c - the stack-analysis building blocks: the flame tree (paths,
 * totals, folded text, SVG), the stack map, callchain trimming, and oncpu's
 * --prio filter text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/oncpu.h"
#include "common/buf.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/flamegraph.h"
#include "common/stackmap.h"
#include "tests/unit/unit.h"

/* Everything @fn writes to a FILE, as a string the caller frees. */
static __attribute__((noinline)) char *capture(void (*fn)(struct pp_flame *, FILE *),
					       struct pp_flame *fg)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&buf, &sz);

	fn(fg, fp);
	fclose(fp);
	return buf;
}

static void write_folded(struct pp_flame *fg, FILE *fp)
{
	pp_flame_write_folded(fg, fp, NULL);
}

static void write_svg(struct pp_flame *fg, FILE *fp)
{
	struct pp_flame_svg_opts o = { .title = "t<1>", .unit = "samples" };

	pp_flame_write_svg(fg, fp, &o);
}

static void test_flame__folded_roundtrip(void)
{
	struct pp_flame *fg = pp_flame_new();
	char *out;

	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "burn;main;burn_a;burn_b 25"), 0);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "burn;main;burn_a 12\n"), 0);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "burn;main;burn_a;burn_b;burn_c 50"), 0);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "burn;main;burn_a;burn_d 13"), 0);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "burn;main;burn_a 1"), 0);	/* adds up */
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "other;;x 4"), 0); /* empty frame skipped */
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "no count"), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "a;b 12x"), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_flame_add_folded_line(fg, "5"), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_flame_sum(fg), 105);
	CU_ASSERT_EQUAL(pp_flame_nr_nodes(fg), 8);
	out = capture(write_folded, fg);
	/* name order, parents before children, only nodes with self weight */
	CU_ASSERT_STRING_EQUAL(out, "burn;main;burn_a 13\n"
				    "burn;main;burn_a;burn_b 25\n"
				    "burn;main;burn_a;burn_b;burn_c 50\n"
				    "burn;main;burn_a;burn_d 13\n"
				    "other;x 4\n");
	free(out);
	pp_flame_free(fg);
}

static int find_node(struct pp_flame_node *n, void *arg)
{
	struct pp_flame_node **want = arg;

	if (!strcmp(n->name, (*want)->name) && n->depth == (*want)->depth) {
		*want = n;
		return 1;
	}
	return 0;
}

static void test_flame__totals_and_paths(void)
{
	struct pp_flame *fg = pp_flame_new();
	struct pp_flame_node *c = pp_flame_path(fg, "p;a;b;c");
	struct pp_flame_node *d = pp_flame_path(fg, "p;a;d");
	struct pp_flame_node key = { .name = "a", .depth = 2 }, *a = &key;
	struct pp_buf b = PP_BUF_INIT;

	CU_ASSERT_PTR_EQUAL(pp_flame_path(fg, "p;a;b;c"), c);	/* found, not created */
	CU_ASSERT_PTR_EQUAL(pp_flame_child(fg, c->parent, "c", 1), c);
	pp_flame_add(c, 3);
	pp_flame_add(d, 1);
	pp_flame_add(c->parent, 2);
	CU_ASSERT_EQUAL(pp_flame_sum(fg), 6);
	CU_ASSERT_EQUAL(pp_flame_walk(fg, find_node, &a), 1);
	CU_ASSERT_EQUAL(a->total, 6);
	CU_ASSERT_EQUAL(c->parent->total, 5);
	CU_ASSERT_EQUAL(c->depth, 4);
	pp_flame_node_path(c, &b);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "p;a;b;c");
	pp_buf_release(&b);
	/* a node added after a walk is sorted into place by the next one */
	pp_flame_add(pp_flame_path(fg, "p;a;0"), 1);
	CU_ASSERT_EQUAL(pp_flame_sum(fg), 7);
	CU_ASSERT_STRING_EQUAL(a->child->name, "0");
	pp_flame_reset(fg);
	CU_ASSERT_EQUAL(pp_flame_sum(fg), 0);
	CU_ASSERT_EQUAL(pp_flame_nr_nodes(fg), 0);
	pp_flame_free(fg);
	pp_flame_free(NULL);
}

/* A deep path is walked without recursion and keeps its order. */
static void test_flame__deep(void)
{
	struct pp_flame *fg = pp_flame_new();
	struct pp_buf b = PP_BUF_INIT;
	char *out;

	pp_buf_adds(&b, "comm");
	for (int i = 0; i < 5000; i++)
		pp_buf_addf(&b, ";f%d", i);
	pp_flame_add(pp_flame_path(fg, pp_buf_str(&b)), 7);
	CU_ASSERT_EQUAL(pp_flame_sum(fg), 7);
	out = capture(write_folded, fg);
	pp_buf_addch(&b, ' ');
	pp_buf_addch(&b, '7');
	pp_buf_addch(&b, '\n');
	CU_ASSERT_STRING_EQUAL(out, pp_buf_str(&b));
	free(out);
	pp_buf_release(&b);
	pp_flame_free(fg);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_flame__svg(void)
{
	struct pp_flame *fg = pp_flame_new();
	char *svg;

	pp_flame_add(pp_flame_path(fg, "prog;main;std::vector<int>::push_back"), 90);
	pp_flame_add(pp_flame_path(fg, "prog;main;a&b \"q\""), 10);
	pp_flame_add(pp_flame_path(fg, "prog;main;tiny"), 0);	/* zero width: not drawn */
	svg = capture(write_svg, fg);
	CU_ASSERT(!strncmp(svg, "<?xml version=\"1.0\"", 19));
	CU_ASSERT(strstr(svg, "</svg>\n") && !strcmp(strstr(svg, "</svg>\n"), "</svg>\n"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(svg, "std::vector&lt;int&gt;::push_back (90 samples, 90.00%)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "a&amp;b &quot;q&quot; (10 samples, 10.00%)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title>all (100 samples, 100.00%)</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">t&lt;1&gt;</text>"));
	CU_ASSERT_PTR_NULL(strstr(svg, "tiny"));
	/* all, prog, main and the two leaves */
	CU_ASSERT_EQUAL(count(svg, "<g class=\"f\""), 5);
	CU_ASSERT_EQUAL(count(svg, "<![CDATA["), 1);
	CU_ASSERT_EQUAL(count(svg, "]]>"), 1);
	free(svg);
	pp_flame_reset(fg);
	svg = capture(write_svg, fg);
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">no samples</text>"));
	free(svg);
	pp_flame_free(fg);
	CU_ASSERT(pp_flame_path_is_svg("x.SVG"));
	CU_ASSERT(!pp_flame_path_is_svg("x.folded"));
	CU_ASSERT(!pp_flame_path_is_svg("svg"));
}

static void test_flame__stackmap(void)
{
	struct pp_stackmap m = PP_STACKMAP_INIT;
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	void **s1 = pp_stackmap_slot(&m, 7, a, 3);

	CU_ASSERT_PTR_NULL(*s1);
	*s1 = a;
	CU_ASSERT_PTR_EQUAL(pp_stackmap_slot(&m, 7, a, 3), s1);
	CU_ASSERT_PTR_NULL(*pp_stackmap_slot(&m, 8, a, 3));	/* other key */
	CU_ASSERT_PTR_NULL(*pp_stackmap_slot(&m, 7, b, 3));	/* other frames */
	CU_ASSERT_PTR_NULL(*pp_stackmap_slot(&m, 7, a, 2));	/* a prefix */
	CU_ASSERT_PTR_NULL(*pp_stackmap_slot(&m, 7, NULL, 0));
	CU_ASSERT_EQUAL(m.nr, 5);
	/* many entries, long ones in their own chunks, all found again */
	uint64_t *big = calloc(20000, sizeof(*big));
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t w[4] = { i, i * 3, i ^ 0x55, 9 };
		*pp_stackmap_slot(&m, i & 3, w, 4) = (void *)(uintptr_t)(i + 1);
	}
	*pp_stackmap_slot(&m, 0, big, 20000) = big;
	for (uint64_t i = 0; i < 100000; i += 997) {
		uint64_t w[4] = { i, i * 3, i ^ 0x55, 9 };
		CU_ASSERT_EQUAL((uintptr_t)*pp_stackmap_slot(&m, i & 3, w, 4), i + 1);
	}
	CU_ASSERT_PTR_EQUAL(*pp_stackmap_slot(&m, 0, big, 20000), big);
	CU_ASSERT_PTR_EQUAL(*s1, a);
	CU_ASSERT_EQUAL(m.nr, 100006);
	pp_stackmap_release(&m);
	CU_ASSERT_EQUAL(m.nr, 0);
	free(big);
}

static void test_flame__callchain_trim(void)
{
	const uint64_t k1 = 0xffffffff81000010ull, k2 = 0xffffffff81000020ull;
	const uint64_t in[] = { PP_CONTEXT_KERNEL, k1, k2, PP_CONTEXT_USER, 0x401000, 0, 0x402000 };
	uint64_t out[8];
	uint32_t n;

	n = pp_callchain_trim(in, 7, out, true, true);
	CU_ASSERT_EQUAL(n, 6);	/* the zero frame is dropped */
	n = pp_callchain_trim(in, 7, out, true, false);
	CU_ASSERT(n == 3 && out[0] == PP_CONTEXT_KERNEL && out[1] == k1 && out[2] == k2);
	n = pp_callchain_trim(in, 7, out, false, true);
	CU_ASSERT(n == 3 && out[0] == PP_CONTEXT_USER && out[1] == 0x401000 && out[2] == 0x402000);
	CU_ASSERT(pp_addr_is_kernel(k1));
	CU_ASSERT(!pp_addr_is_kernel(0x7fff00000000ull));
	CU_ASSERT(!pp_addr_is_kernel(PP_CONTEXT_USER));
}

static void test_flame__oncpu_prio(void)
{
	char *f = oncpu_prio_filter("1-99");

	CU_ASSERT_STRING_EQUAL(f, "(prev_prio>=1&&prev_prio<=99)||(next_prio>=1&&next_prio<=99)");
	free(f);
	f = oncpu_prio_filter("120,5,6");
	CU_ASSERT_STRING_EQUAL(f, "(prev_prio>=5&&prev_prio<=6)||(prev_prio>=120&&prev_prio<=120)||"
				  "(next_prio>=5&&next_prio<=6)||(next_prio>=120&&next_prio<=120)");
	free(f);
	CU_ASSERT_PTR_NULL(oncpu_prio_filter("x"));
}

/*
 * Interned names: a child found by an interned name is the node pp_flame_path() makes; the
 * serial differs between trees and changes at a reset, so a cache of interned names knows.
 */
static void test_flame__interned(void)
{
	struct pp_flame *a = pp_flame_new(), *b = pp_flame_new();
	struct pp_flame_node *n;
	const char *in;
	uint64_t sa = pp_flame_serial(a);

	CU_ASSERT_NOT_EQUAL(sa, pp_flame_serial(b));
	in = pp_flame_intern(a, "main;x", 4);
	CU_ASSERT_STRING_EQUAL(in, "main");
	CU_ASSERT_PTR_EQUAL(in, pp_flame_intern(a, "main", 4));
	n = pp_flame_child_interned(a, pp_flame_root(a), in);
	n = pp_flame_child_interned(a, n, pp_flame_intern(a, "f (inlined)", 11));
	CU_ASSERT_PTR_EQUAL(n, pp_flame_path(a, "main;f (inlined)"));
	CU_ASSERT_PTR_EQUAL(n, pp_flame_child(a, pp_flame_path(a, "main"), "f (inlined)", 11));
	pp_flame_reset(a);
	CU_ASSERT_NOT_EQUAL(pp_flame_serial(a), sa);
	CU_ASSERT_NOT_EQUAL(pp_flame_serial(a), pp_flame_serial(b));
	pp_flame_free(a);
	pp_flame_free(b);
}

void test_flame__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_flame__folded_roundtrip, "folded lines add up and print back sorted"),
		PP_TEST(test_flame__totals_and_paths,
			"paths are found again, totals include children"),
		PP_TEST(test_flame__deep, "a 5000-frame path prints without recursion"),
		PP_TEST(test_flame__svg,
			"the SVG escapes names, draws visible frames, says when empty"),
		PP_TEST(test_flame__stackmap, "the stack map keys on key, length and every frame"),
		PP_TEST(test_flame__interned, "interned names find the nodes paths make; serials"),
		PP_TEST(test_flame__callchain_trim, "callchains trim to kernel or user frames"),
		PP_TEST(test_flame__oncpu_prio, "oncpu --prio lists become sched_switch filters"),
	};
	pp_suite_add("flame", tests, PP_ARRAY_SIZE(tests));
}
