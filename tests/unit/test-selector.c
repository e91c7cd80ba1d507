/* SPDX-License-Identifier: MIT */
/*
 * test-selector.c - the event selector parser: kinds, attributes, quoting, globs, errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/selector.h"
#include "tests/unit/unit.h"

static struct pp_selector *parse_ok(const char *text, size_t want)
{
	struct pp_selector *v = NULL;
	struct pp_parse_error err;
	size_t nr = 0;
	int ret = pp_selector_parse(text, &v, &nr, &err);

	if (ret)
		fprintf(stderr, "\n  '%s': %s at %d\n", text, err.msg, err.pos);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL_FATAL(nr, want);
	return v;
}

/* Parse @text expecting error @code at @pos with @msg as a substring of the message. */
static void parse_bad(const char *text, int code, int pos, const char *msg)
{
	struct pp_selector *v = (struct pp_selector *)1;
	struct pp_parse_error err;
	size_t nr = 7;
	int ret = pp_selector_parse(text, &v, &nr, &err);

	if (ret != code || err.pos != pos || !strstr(err.msg, msg))
		fprintf(stderr, "\n  '%s': got %d at %d '%s'\n", text, ret, err.pos, err.msg);
	CU_ASSERT_EQUAL(ret, code);
	CU_ASSERT_EQUAL(err.pos, pos);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(nr, 0);
}

/* A selector text that does not parse: the code, position and message parse_bad() expects. */
struct bad_case {
	const char *text;
	int code, pos;
	const char *msg;
};

static void test_selector__tracepoint(void)
{
	struct pp_selector *v = parse_ok("sched:sched_switch", 1);

	CU_ASSERT_EQUAL(v[0].kind, PP_SEL_TRACEPOINT);
	CU_ASSERT_STRING_EQUAL(v[0].sys, "sched");
	CU_ASSERT_STRING_EQUAL(v[0].name, "sched_switch");
	CU_ASSERT_STRING_EQUAL(v[0].text, "sched:sched_switch");
	CU_ASSERT_PTR_NULL(v[0].filter);
	CU_ASSERT_EQUAL(v[0].filter_pos, -1);
	CU_ASSERT_EQUAL(v[0].nr_attrs, 0);
	CU_ASSERT_FALSE(v[0].stack);
	CU_ASSERT_FALSE(pp_selector_is_glob(&v[0]));
	pp_selector_free_array(v, 1);

	v = parse_ok("sched:sched_wakeup/pid>1/", 1);
	CU_ASSERT_STRING_EQUAL(v[0].filter, "pid>1");
	CU_ASSERT_EQUAL(v[0].filter_pos, 19);
	CU_ASSERT_EQUAL(v[0].nr_attrs, 0);
	pp_selector_free_array(v, 1);

	/* Filter without the closing '/', empty filter, trailing spaces. */
	v = parse_ok("  sched:a/pid>1 ,sched:b//stack", 2);
	CU_ASSERT_STRING_EQUAL(v[0].filter, "pid>1");
	CU_ASSERT_EQUAL(v[0].pos, 2);
	CU_ASSERT_STRING_EQUAL(v[0].text, "sched:a/pid>1");
	CU_ASSERT_PTR_NULL(v[1].filter);
	CU_ASSERT_TRUE(v[1].stack);
	CU_ASSERT_EQUAL(v[1].pos, 17);
	pp_selector_free_array(v, 2);
}

static void test_selector__all_attrs(void)
{
	const char *text =
		"sys:ev//stack/max-stack=32/alias=foo/key=pid/printkey=printf(\"%d, %d\",key,1)/"
		"role=(next_pid?1:0)|(prev_pid?2:0)/untraced/trigger/top-by=a/top_by=b/top-add=c/"
		"top_add=d/comm=ksymbol(x)/ptr=ptr/size=(4096<<order)/num=n/exec=printf(\"x\")/"
		"cpus=\"0-3,5\"/index=pid/vm=6c2e-11ee/push=9900/pull=127.0.0.1:9900/";
	static const char *const want[][2] = {
		{ "stack", NULL }, { "max-stack", "32" }, { "alias", "foo" }, { "key", "pid" },
		{ "printkey", "printf(\"%d, %d\",key,1)" },
		{ "role", "(next_pid?1:0)|(prev_pid?2:0)" }, { "untraced", NULL },
		{ "trigger", NULL }, { "top-by", "a" }, { "top-by", "b" }, { "top-add", "c" },
		{ "top-add", "d" }, { "comm", "ksymbol(x)" }, { "ptr", "ptr" },
		{ "size", "4096<<order" }, { "num", "n" }, { "exec", "printf(\"x\")" },
		{ "cpus", "0-3,5" }, { "index", "pid" }, { "vm", "6c2e-11ee" }, { "push", "9900" },
		{ "pull", "127.0.0.1:9900" },
	};
	struct pp_selector *v = parse_ok(text, 1);

	CU_ASSERT_EQUAL_FATAL(v[0].nr_attrs, PP_ARRAY_SIZE(want));
	for (size_t i = 0; i < PP_ARRAY_SIZE(want); i++) {
		const struct pp_sel_attr *a = &v[0].attrs[i];

		CU_ASSERT_STRING_EQUAL(a->name, want[i][0]);
		if (want[i][1]) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(a->value);
			CU_ASSERT_STRING_EQUAL(a->value, want[i][1]);
			CU_ASSERT_EQUAL(strncmp(text + a->value_pos, want[i][1],
						strlen(want[i][1])), 0);
		} else {
			CU_ASSERT_PTR_NULL(a->value);
			CU_ASSERT_EQUAL(a->value_pos, -1);
		}
		CU_ASSERT_EQUAL(strncmp(text + a->pos, want[i][0], 2), 0);
	}
	CU_ASSERT_TRUE(v[0].stack);
	CU_ASSERT_EQUAL(v[0].max_stack, 32);
	CU_ASSERT_TRUE(v[0].untraced);
	CU_ASSERT_TRUE(v[0].trigger);
	CU_ASSERT_STRING_EQUAL(v[0].alias, "foo");
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[0], "stack"), "");
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[0], "top-by"), "a");
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[0], "cpus"), "0-3,5");
	CU_ASSERT_PTR_NULL(pp_selector_attr(&v[0], "top_by"));
	CU_ASSERT_PTR_NULL(pp_selector_attr(&v[0], "nope"));
	pp_selector_free_array(v, 1);

	/* max-stack alone implies stack; parenthesized lists; single quotes. */
	v = parse_ok("a:b//max-stack=8/cpus=(1,2)/alias='x y'/", 1);
	CU_ASSERT_TRUE(v[0].stack);
	CU_ASSERT_EQUAL(v[0].max_stack, 8);
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[0], "cpus"), "1,2");
	CU_ASSERT_STRING_EQUAL(v[0].alias, "x y");
	pp_selector_free_array(v, 1);
}

static void test_selector__quoting(void)
{
	struct pp_selector *v =
		parse_ok("sched:sched_wakeup/comm==\"a,b/c\"/key=(pid/2)/,sched:x/(a/2)>1/"
			 "key=(a)+(b)/,s:y/comm=='x)'/", 3);

	CU_ASSERT_STRING_EQUAL(v[0].filter, "comm==\"a,b/c\"");
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[0], "key"), "pid/2");
	CU_ASSERT_STRING_EQUAL(v[1].filter, "(a/2)>1");
	CU_ASSERT_EQUAL(v[1].filter_pos, 54);
	/* Only a pair of parentheses around the whole value goes. */
	CU_ASSERT_STRING_EQUAL(pp_selector_attr(&v[1], "key"), "(a)+(b)");
	CU_ASSERT_STRING_EQUAL(v[2].filter, "comm=='x)'");
	pp_selector_free_array(v, 3);

	/* Braces protect commas (kernel CPUS{} filters). */
	v = parse_ok("irq:irq_handler_entry/irq & CPUS{1,3}/", 1);
	CU_ASSERT_STRING_EQUAL(v[0].filter, "irq & CPUS{1,3}");
	pp_selector_free_array(v, 1);
}

static void test_selector__probes(void)
{
	struct pp_selector *v = parse_ok("uprobe:/bin/bash:readline+0x10/common_pid>1/stack/,"
					 "uprobe:/bin/bash:0x4a5b0,"
					 "uretprobe:readline@\"/usr/bin/ba sh\"/(a/2)?x:y/,"
					 "uprobe:main@libc.so.6,"
					 "uprobe:\"/opt/my app\":main", 5);

	CU_ASSERT_EQUAL(v[0].kind, PP_SEL_UPROBE);
	CU_ASSERT_STRING_EQUAL(v[0].sys, "uprobe");
	CU_ASSERT_STRING_EQUAL(v[0].binary, "/bin/bash");
	CU_ASSERT_STRING_EQUAL(v[0].func, "readline");
	CU_ASSERT_STRING_EQUAL(v[0].name, "readline");
	CU_ASSERT_EQUAL(v[0].offset, 0x10);
	CU_ASSERT_FALSE(v[0].has_offset_only);
	CU_ASSERT_STRING_EQUAL(v[0].filter, "common_pid>1");
	CU_ASSERT_TRUE(v[0].stack);

	CU_ASSERT_STRING_EQUAL(v[1].binary, "/bin/bash");
	CU_ASSERT_PTR_NULL(v[1].func);
	CU_ASSERT_TRUE(v[1].has_offset_only);
	CU_ASSERT_EQUAL(v[1].offset, 0x4a5b0);

	CU_ASSERT_EQUAL(v[2].kind, PP_SEL_URETPROBE);
	CU_ASSERT_STRING_EQUAL(v[2].sys, "uretprobe");
	CU_ASSERT_STRING_EQUAL(v[2].binary, "/usr/bin/ba sh");
	CU_ASSERT_STRING_EQUAL(v[2].func, "readline");
	CU_ASSERT_STRING_EQUAL(v[2].filter, "(a/2)?x:y");

	CU_ASSERT_STRING_EQUAL(v[3].binary, "libc.so.6");
	CU_ASSERT_STRING_EQUAL(v[3].func, "main");
	CU_ASSERT_STRING_EQUAL(v[4].binary, "/opt/my app");
	CU_ASSERT_FALSE(pp_selector_is_glob(&v[0]));
	pp_selector_free_array(v, 5);

	v = parse_ok("kprobe:do_sys_open+8,kretprobe:do_sys_open//stack/", 2);
	CU_ASSERT_EQUAL(v[0].kind, PP_SEL_KPROBE);
	CU_ASSERT_STRING_EQUAL(v[0].sys, "kprobe");
	CU_ASSERT_STRING_EQUAL(v[0].name, "do_sys_open");
	CU_ASSERT_EQUAL(v[0].offset, 8);
	CU_ASSERT_EQUAL(v[1].kind, PP_SEL_KRETPROBE);
	CU_ASSERT_STRING_EQUAL(v[1].name, "do_sys_open");
	CU_ASSERT_TRUE(v[1].stack);
	pp_selector_free_array(v, 2);
}

static void test_selector__plain(void)
{
	struct pp_selector *v = parse_ok("profile/-F 500 -g/untraced/,cpu-clock,x/a==1/", 3);

	CU_ASSERT_EQUAL(v[0].kind, PP_SEL_PLAIN);
	CU_ASSERT_PTR_NULL(v[0].sys);
	CU_ASSERT_STRING_EQUAL(v[0].name, "profile");
	CU_ASSERT_STRING_EQUAL(v[0].options, "-F 500 -g");
	CU_ASSERT_PTR_NULL(v[0].filter);
	CU_ASSERT_TRUE(v[0].untraced);
	CU_ASSERT_STRING_EQUAL(v[1].name, "cpu-clock");
	CU_ASSERT_PTR_NULL(v[1].options);
	CU_ASSERT_STRING_EQUAL(v[2].filter, "a==1");
	pp_selector_free_array(v, 3);
}

static void test_selector__globs(void)
{
	struct pp_selector *v = parse_ok("sched:sched_wakeup*,*:x,s:[ab]c", 3);

	CU_ASSERT_TRUE(pp_selector_is_glob(&v[0]));
	CU_ASSERT_TRUE(pp_selector_is_glob(&v[1]));
	CU_ASSERT_TRUE(pp_selector_is_glob(&v[2]));
	pp_selector_free_array(v, 3);

	CU_ASSERT_TRUE(pp_glob_match("sched_wakeup*", "sched_wakeup_new"));
	CU_ASSERT_TRUE(pp_glob_match("sched_wakeup*", "sched_wakeup"));
	CU_ASSERT_FALSE(pp_glob_match("sched_wakeup*", "sched_waking"));
	CU_ASSERT_TRUE(pp_glob_match("*", ""));
	CU_ASSERT_TRUE(pp_glob_match("", ""));
	CU_ASSERT_FALSE(pp_glob_match("", "a"));
	CU_ASSERT_TRUE(pp_glob_match("a*c", "abbbc"));
	CU_ASSERT_TRUE(pp_glob_match("a*c", "ac"));
	CU_ASSERT_FALSE(pp_glob_match("a*c", "acb"));
	CU_ASSERT_TRUE(pp_glob_match("a?c", "abc"));
	CU_ASSERT_FALSE(pp_glob_match("a?c", "ac"));
	CU_ASSERT_TRUE(pp_glob_match("[abc]x", "bx"));
	CU_ASSERT_FALSE(pp_glob_match("[abc]x", "dx"));
	CU_ASSERT_TRUE(pp_glob_match("[a-z]9", "q9"));
	CU_ASSERT_FALSE(pp_glob_match("[a-z]9", "Q9"));
	CU_ASSERT_TRUE(pp_glob_match("[!x]y", "ay"));
	CU_ASSERT_FALSE(pp_glob_match("[!x]y", "xy"));
	CU_ASSERT_TRUE(pp_glob_match("[^x]y", "ay"));
	CU_ASSERT_FALSE(pp_glob_match("[^x]y", "xy"));
	CU_ASSERT_TRUE(pp_glob_match("[]a]", "]"));
	CU_ASSERT_TRUE(pp_glob_match("[a-]", "-"));
	CU_ASSERT_TRUE(pp_glob_match("[ab", "[ab"));	/* unclosed: literal */
	CU_ASSERT_TRUE(pp_glob_match("a\\*", "a*"));
	CU_ASSERT_FALSE(pp_glob_match("a\\*", "ab"));
	CU_ASSERT_TRUE(pp_glob_match("*py*[0-9]", "python3"));
	CU_ASSERT_TRUE(pp_glob_match("**a**", "bab"));
	CU_ASSERT_TRUE(pp_glob_matchn("ab*", 2, "abx", 2));

	/* Pathological backtracking stays fast. */
	char s[4001];
	struct timespec t0, t1;

	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_FALSE(pp_glob_match("*a*a*a*a*a*a*a*a*a*a*a*b", s));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CU_ASSERT_TRUE(t1.tv_sec - t0.tv_sec < 2);
}

static void test_selector__errors(void)
{
	static const struct bad_case bad[] = {
		{ "", PP_ESYNTAX, 0, "empty event" },
		{ "a:b,,c:d", PP_ESYNTAX, 4, "empty event" },
		{ "a:b,", PP_ESYNTAX, 4, "empty event" },
		{ "sched:x/(a/", PP_ESYNTAX, 8, "unclosed '('" },
		{ "sched:x/\"abc/", PP_ESYNTAX, 8, "unterminated quote" },
		{ "sched:x/a)/", PP_ESYNTAX, 9, "unbalanced ')'" },
		{ "sched:", PP_ESYNTAX, 6, "missing event name" },
		{ ":x", PP_ESYNTAX, 0, "missing event system" },
		{ "sched:sc hed", PP_ESYNTAX, 8, "invalid character ' '" },
		{ "sched:x//foo=1/", PP_EUNKNOWN_ATTR, 9, "unknown attribute 'foo'" },
		{ "a:b/x/, c:d//stack/bogus/", PP_EUNKNOWN_ATTR, 19, "unknown attribute 'bogus'" },
		{ "a:b//stack=1/", PP_ESYNTAX, 10, "takes no value" },
		{ "a:b//key/", PP_ESYNTAX, 5, "needs a value" },
		{ "a:b//key=/", PP_ESYNTAX, 9, "needs a value" },
		{ "a:b//max-stack=abc/", PP_ESYNTAX, 15, "invalid number" },
		{ "a:b//max-stack=0/", PP_ESYNTAX, 15, "out of range" },
		{ "a:b//cpus=x/", PP_ESYNTAX, 10, "invalid list" },
		{ "a:b//untraced=/", PP_ESYNTAX, 13, "takes no value" },
		{ "a:b\"x\"/", PP_ESYNTAX, 3, "invalid character" },
		/* probes */
		{ "uprobe:readline", PP_ESYNTAX, 7, "needs a binary" },
		{ "uprobe:main@/bin/x", PP_ESYNTAX, 12, "quote the binary" },
		{ "uprobe:/bin/x:", PP_ESYNTAX, 14, "missing function" },
		{ "uprobe:/bin/x:f+zz", PP_ESYNTAX, 16, "invalid number" },
		{ "kprobe:", PP_ESYNTAX, 7, "missing function" },
		{ "uprobe::main", PP_ESYNTAX, 7, "missing binary" },
	};

	for (size_t i = 0; i < PP_ARRAY_SIZE(bad); i++)
		parse_bad(bad[i].text, bad[i].code, bad[i].pos, bad[i].msg);
}

static void test_selector__error_print(void)
{
	struct pp_parse_error err = { 9, "unknown attribute 'foo'" };
	char buf[512] = "", want[256];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	pp_parse_error_print("bad event", "sched:x//foo=1/", &err);
	err.pos = 3;
	pp_parse_error_print(NULL, "a\n\tbc+", &err);
	err.pos = -1;
	pp_parse_error_print("x", "y", &err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	/* The caret is under the 9th character after "PROG: error: bad event: ". */
	snprintf(want, sizeof(want), "%s: error: bad event: sched:x//foo=1/\n%*s^ unknown attr",
		 pp_progname, (int)strlen(pp_progname) + 20 + 9, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	/* Only the line of the error, tabs as spaces. */
	snprintf(want, sizeof(want), "%s: error:  bc+\n%*s^ unknown", pp_progname,
		 (int)strlen(pp_progname) + 9 + 1, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ": error: x: unknown attribute 'foo'\n"));
}

/* Random lists of pieces: every result is either a clean error or a sane array. */
static void test_selector__random(void)
{
	static const char *const pieces[] = {
		"sched:", "sched_switch", "uprobe:", "uretprobe:", "kprobe:", "/bin/x", ":",
		"@", "\"", "'", "(", ")", "{", "}", "/", ",", "=", "stack", "key", "max-stack",
		"0x10", "+", "*", "?", "[a]", " ", "alias", "cpus", "1-3", "\\", "fn", "-F 1",
	};
	unsigned seed = 7;
	char text[96];

	for (int round = 0; round < 50000; round++) {
		struct pp_selector *v;
		struct pp_parse_error err;
		size_t n = 0, nr;
		int k = rand_r(&seed) % 12;

		while (k--) {
			const char *p = pieces[rand_r(&seed) % PP_ARRAY_SIZE(pieces)];

			if (n + strlen(p) >= sizeof(text))
				break;
			memcpy(text + n, p, strlen(p));
			n += strlen(p);
		}
		text[n] = '\0';
		if (pp_selector_parse(text, &v, &nr, &err)) {
			CU_ASSERT_TRUE(err.pos >= 0 && err.pos <= (int)n && err.msg[0]);
			continue;
		}
		CU_ASSERT_TRUE(nr >= 1);
		for (size_t i = 0; i < nr; i++) {
			CU_ASSERT_PTR_NOT_NULL(v[i].text);
			CU_ASSERT_TRUE(v[i].pos >= 0 && v[i].pos < (int)n);
			CU_ASSERT_TRUE(v[i].filter_pos < (int)n);
			for (size_t j = 0; j < v[i].nr_attrs; j++)
				CU_ASSERT_TRUE(v[i].attrs[j].pos < (int)n &&
					       v[i].attrs[j].value_pos <= (int)n);
		}
		pp_selector_free_array(v, nr);
	}
}

void test_selector__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_selector__tracepoint, "sys:name with filters and positions"),
		PP_TEST(test_selector__all_attrs, "every attribute, canonical names, values"),
		PP_TEST(test_selector__quoting, "quotes, parentheses and braces keep separators"),
		PP_TEST(test_selector__probes, "uprobe, uretprobe, kprobe and kretprobe forms"),
		PP_TEST(test_selector__plain, "analyzer sources with option strings"),
		PP_TEST(test_selector__globs, "glob selectors and pp_glob_match classes"),
		PP_TEST(test_selector__errors, "errors name the problem at its position"),
		PP_TEST(test_selector__error_print, "the caret lands under the error"),
		PP_TEST(test_selector__random, "random selectors parse or fail cleanly"),
	};

	pp_suite_add("selector", tests, PP_ARRAY_SIZE(tests));
}
