/* SPDX-License-Identifier: MIT */
/*
 * test-expr-filter.c - filters (kernel syntax, generated text), compile errors and their
 * positions, hostile records and sources, listings, and the cost of one evaluation.
 * Part of the "expr" suite (test-expr.c registers these).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "tests/unit/test-expr.h"

static void test_expr__filters(void)
{
	tex_setup();
	FEQ("prev_pid == 1234 && next_comm == python3", 1);
	FEQ("next_comm ~ pyth*", 1);
	FEQ("next_comm ~ *thon?", 1);
	FEQ("next_comm ~ \"pyth*\"", 1);
	FEQ("prev_comm == bash", 1);
	FEQ("prev_comm != bash", 0);
	FEQ("prev_comm==bash&&prev_pid==1234", 1);
	FEQ("(prev_comm == bash)", 1);
	FEQ("prev_comm ~ b[a-z]sh", 1);
	FEQ("prev_comm == 'bash' && next_comm ~ 'py*'", 1);
	FEQ("prev_comm != 'a b'", 1);
	FEQ("prev_pid == 'a' - 97 + 1234", 1);	/* a number on the left: a character */
	FEQ("prev_comm == 5", 0);
	FEQ("prev_comm == next_comm", 0);	/* a field name stays a field */
	FEQ("(prev_pid > 5 || next_pid < 3) && common_flags & 1", 1);
	FEQ("next_prio & CPUS{100-120}", 1);
	FEQ("next_prio & CPUS{0-3}", 0);
	FEQ("_cpu & CPUS{1,3}", 1);
	FEQ("_cpu & CPUS{0-2,4}", 0);
	FEQ("_cpu & CPUS{4095}", 0);
	FEQ("common_cpu == 3", 1);
	FEQ("CPU == 3", 1);
	FEQ("prev_comm == \"bash\" && !(next_pid < 0)", 1);
	FEQ("prev_pid == 1234 || printf(\"x\")", 1);
	FEQ("comm_get(_pid) ~ \"python*\" && _cpu == 3", 1);
	FEQ("prev_prio - next_prio > 10", 1);	/* field to field, in user space */

	FBAD("prev_pid.function == foo", PP_ENOTSUP, 8, "not supported");
	FBAD("filename.ustring ~ \"x\"", PP_ENOTSUP, 8, "not supported");
	FBAD("CPUS{1} == prev_pid", PP_ENOTSUP, 0, "CPUS");
	FBAD("prev_pid & CPUS{x}", PP_ESYNTAX, 16, "invalid CPU list");
	FBAD("prev_pid & CPUS{5000}", PP_ESYNTAX, 16, "invalid CPU list");
	FBAD("prev_pid & CPUS{1", PP_ESYNTAX, 15, "unterminated");
	FBAD("prev_comm & CPUS{1}", PP_ETYPE, 10, "integer");
	FBAD("prev_pid == bash", PP_EUNKNOWN_FIELD, 12, "unknown field 'bash'");
	/* Without the filter flag, bare words and CPUS{} are names. */
	BAD("prev_comm == bash", PP_EUNKNOWN_FIELD, 13, "unknown field 'bash'");
	BAD("common_cpu", PP_EUNKNOWN_FIELD, 0, "unknown field 'common_cpu'");
}

static int64_t filter_eval(const char *text)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e;
	int64_t v;

	if (pp_filter_compile(text, &env, &e, &err)) {
		fprintf(stderr, "\n  '%s': %s at %d\n", text, err.msg, err.pos);
		return -1;
	}
	v = pp_filter_match(e, &tex_ctx);
	pp_expr_free(e);
	return v;
}

static void test_expr__generated_filters(void)
{
	static const char *const comms[] = { "java", "pyth*" };
	static const char *const comms2[] = { "zsh", "ba*" };
	static const char *const comms3[] = { "zsh", "ba[!s]h" };
	static const char *const odd[] = { "a\"b\\" };
	static const int pids[] = { 5, 1, 3, 4, 3, 9, 10 };
	static const int pids2[] = { 1, 1235, 1233, 1234 };
	static const int extremes[] = { 2147483647, -2147483647 - 1, 2147483646 };
	struct pp_buf b = PP_BUF_INIT;

	tex_setup();
	pp_filter_from_comms(&b, "comm", comms, 2);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "comm == \"java\" || comm ~ \"pyth*\"");
	pp_buf_reset(&b);
	pp_filter_from_comms(&b, "comm", odd, 1);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "comm == \"a\\\"b\\\\\"");
	pp_buf_reset(&b);
	pp_filter_from_pids(&b, "pid", pids, PP_ARRAY_SIZE(pids));
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "pid==1 || (pid>=3&&pid<=5) || (pid>=9&&pid<=10)");
	pp_buf_reset(&b);
	pp_filter_from_pids(&b, "pid", pids, 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "");
	pp_filter_from_pids(&b, "pid", extremes, 3);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b),
			       "pid==-2147483648 || (pid>=2147483646&&pid<=2147483647)");

	/* The generated text compiles and selects. */
	pp_buf_reset(&b);
	pp_filter_from_comms(&b, "prev_comm", comms2, 2);
	CU_ASSERT_EQUAL(filter_eval(pp_buf_str(&b)), 1);
	pp_buf_reset(&b);
	pp_filter_from_comms(&b, "prev_comm", comms3, 2);
	CU_ASSERT_EQUAL(filter_eval(pp_buf_str(&b)), 0);
	pp_buf_reset(&b);
	pp_filter_from_comms(&b, "prev_comm", odd, 1);
	CU_ASSERT_EQUAL(filter_eval(pp_buf_str(&b)), 0);
	pp_buf_reset(&b);
	pp_filter_from_pids(&b, "prev_pid", pids2, 4);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "prev_pid==1 || (prev_pid>=1233&&prev_pid<=1235)");
	CU_ASSERT_EQUAL(filter_eval(pp_buf_str(&b)), 1);
	pp_buf_reset(&b);
	pp_filter_from_pids(&b, "next_pid", pids2, 4);
	CU_ASSERT_EQUAL(filter_eval(pp_buf_str(&b)), 0);

	/* --filter's comma-separated form: quotes escaped, no limit on the number of names */
	pp_buf_reset(&b);
	pp_filter_from_comm_list(&b, "comm", "java,,pyth*,a\"b");
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b),
			       "comm == \"java\" || comm ~ \"pyth*\" || comm == \"a\\\"b\"");
	pp_buf_reset(&b);
	{
		struct pp_buf list = PP_BUF_INIT;
		size_t ors = 0;

		for (int i = 0; i < 100; i++)
			pp_buf_addf(&list, "%sn%d", i ? "," : "", i);
		pp_filter_from_comm_list(&b, "comm", pp_buf_str(&list));
		for (const char *q = pp_buf_str(&b); (q = strstr(q, " || ")); q++)
			ors++;
		CU_ASSERT_EQUAL(ors, 99);
		CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "comm == \"n99\""));
		pp_buf_release(&list);
	}
	pp_buf_release(&b);
}

static void test_expr__errors(void)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e;

	tex_setup();
	BAD("prev_pid +", PP_ESYNTAX, 10, "unexpected end");
	BAD("foo + 1", PP_EUNKNOWN_FIELD, 0, "unknown field 'foo'");
	BAD("prev_pid + next_pid * nosuch", PP_EUNKNOWN_FIELD, 22, "unknown field 'nosuch'");
	BAD("1 + (2 * 3", PP_ESYNTAX, 10, "expected ')'");
	BAD("(1 ? 2)", PP_ESYNTAX, 6, "expected ':'");
	BAD("prev_comm[1", PP_ESYNTAX, 11, "expected ']'");
	BAD("prev_pid ~ \"x\"", PP_ETYPE, 9, "'~' needs a string");
	BAD("prev_pid + 1 = 1", PP_ETYPE, 13, "bad lvalue in assignment");
	BAD("prev_pid += 1", PP_ENOTSUP, 9, "'+=' is not supported");
	BAD("1++", PP_ETYPE, 1, "bad lvalue in post-increment");
	BAD("--_cpu", PP_ETYPE, 0, "bad lvalue in pre-decrement");
	BAD("\"abc", PP_ESYNTAX, 0, "unterminated string");
	BAD("1 $ 2", PP_ESYNTAX, 2, "unexpected character '$'");
	BAD("08", PP_ESYNTAX, 1, "octal");
	BAD("99999999999999999999", PP_ERANGE, 0, "too large");
	BAD("12abc", PP_ESYNTAX, 2, "suffix");
	BAD("0x", PP_ESYNTAX, 0, "invalid number");
	BAD("", PP_ESYNTAX, 0, "empty");
	BAD("  # only a comment", PP_ESYNTAX, 18, "empty");
	BAD("1 /* x", PP_ESYNTAX, 2, "unterminated comment");
	BAD("'ab'", PP_ESYNTAX, 0, "character constant");
	BAD("''", PP_ESYNTAX, 0, "empty character constant");
	BAD("\"\\x\"", PP_ESYNTAX, 1, "hex digits");
	BAD("printf(1)", PP_ETYPE, 7, "argument 1 of printf() must be a string");
	BAD("strncmp(\"a\", 2, 1)", PP_ETYPE, 13, "argument 2 of strncmp()");
	BAD("foo(1)", PP_ESYNTAX, 0, "unknown function 'foo'");
	BAD("ksymbol()", PP_ETYPE, 0, "too few arguments");
	BAD("ntohl(1, 2)", PP_ETYPE, 9, "too many arguments");
	BAD("printf(\"\", 1, 2, 3, 4, 5, 6, 7)", PP_ETYPE, 29, "too many arguments");
	BAD("1 2", PP_ESYNTAX, 2, "unexpected '2'");
	BAD("prev_pid.x", PP_ENOTSUP, 8, "'.'");
	BAD("prev_pid->x", PP_ENOTSUP, 8, "'->'");
	BAD("*prev_pid", PP_ETYPE, 0, "needs a pointer");
	BAD("*(void *)prev_comm", PP_ETYPE, 0, "void pointer");
	BAD("&1", PP_ETYPE, 0, "address");
	BAD("&filename", PP_ETYPE, 0, "address");
	BAD("prev_comm * 2", PP_ETYPE, 10, "invalid operands to '*'");
	BAD("prev_comm + next_comm", PP_ETYPE, 10, "invalid operands to '+'");
	BAD("1 - prev_comm", PP_ETYPE, 2, "invalid operands to '-'");
	BAD("prev_comm << 1", PP_ETYPE, 10, "invalid operands to '<<'");
	BAD("prev_pid[1]", PP_ETYPE, 8, "subscripted");
	BAD("prev_comm[prev_comm]", PP_ETYPE, 10, "index");
	BAD("-prev_comm", PP_ETYPE, 0, "unary '-'");
	BAD("(void)1 + 1", PP_ETYPE, 8, "void");
	BAD("(int *", PP_ESYNTAX, 6, "expected ')'");
	BAD("(unsigned char long)1", PP_ETYPE, 15, "invalid type");
	BAD("(u8 int)1", PP_ETYPE, 4, "invalid type");
	BAD("int", PP_ESYNTAX, 0, "type name");
	BAD("prev_pid(1)", PP_ESYNTAX, 0, "unknown function");
	BAD("(1)(2)", PP_ETYPE, 3, "not a function");
	BAD("1 ? prev_comm", PP_ESYNTAX, 13, "expected ':' at the end");

	/* The message of an unknown field names the field and nothing else. */
	CU_ASSERT_EQUAL(pp_expr_compile("1 + prev_pidd", &env, &e, &err), PP_EUNKNOWN_FIELD);
	CU_ASSERT_STRING_EQUAL(err.msg, "unknown field 'prev_pidd'");
	CU_ASSERT_EQUAL(err.pos, 4);
	/* NULL env and err are fine. */
	CU_ASSERT_EQUAL(pp_expr_compile("1 +", NULL, &e, NULL), PP_ESYNTAX);
	CU_ASSERT_EQUAL(pp_expr_compile("_cpu + 1", NULL, &e, NULL), 0);
	pp_expr_free(e);
	pp_expr_free(NULL);
}

static char *repeat(const char *a, int n, const char *mid, const char *b, int m)
{
	size_t la = strlen(a), lb = strlen(b), lm = strlen(mid);
	char *s = malloc(la * (size_t)n + lm + lb * (size_t)m + 1), *p = s;

	for (int i = 0; i < n; i++, p += la)
		memcpy(p, a, la);
	memcpy(p, mid, lm);
	p += lm;
	for (int i = 0; i < m; i++, p += lb)
		memcpy(p, b, lb);
	*p = '\0';
	return s;
}

/* Expressions made of a prefix repeated n times, a middle, a suffix repeated m times. */
static const struct {
	const char *a;
	int n;
	const char *mid, *b;
	int m;
	int code;	/* 0: evaluates to @want; else the compile error, at @want when @msg */
	int64_t want;
	const char *msg;
} limits[] = {
	{ "(", 90, "1", ")", 90, 0, 1, NULL },
	{ "1+(", 90, "1", ")", 90, 0, 91, NULL },
	{ "!", 50, "1", "", 0, 0, 1, NULL },
	{ "1+", 5000, "1", "", 0, 0, 5001, NULL },
	{ "(", 200, "1", ")", 200, PP_ERANGE, 100, "nested too deeply" },
	{ "(", 60000, "1", "", 0, PP_ERANGE, 100, "nested too deeply" },
	{ "- ", 30000, "1", "", 0, PP_ERANGE, 200, "nested too deeply" },
	{ "(", 100000, "1", "", 0, PP_ERANGE, 65536, "too long" },
	{ "1?", 10000, "1", ":1", 10000, PP_ERANGE, 0, NULL },
	{ " ", 70000, "1", "", 0, PP_ERANGE, 65536, "too long" },
	{ "prev_comm[", 60, "0", "]", 60, 0, 0, NULL },	/* 'b', then prev_comm[98]: 0, ... */
};

static void test_expr__limits(void)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e;
	char *s;

	tex_setup();
	for (size_t i = 0; i < PP_ARRAY_SIZE(limits); i++) {
		s = repeat(limits[i].a, limits[i].n, limits[i].mid, limits[i].b, limits[i].m);
		if (!limits[i].code) {
			CU_ASSERT_EQUAL(tex_eval(s, false, __FILE__, __LINE__), limits[i].want);
		} else if (limits[i].msg) {
			BAD(s, limits[i].code, (int)limits[i].want, limits[i].msg);
		} else {
			CU_ASSERT_EQUAL(pp_expr_compile(s, &env, &e, &err), limits[i].code);
		}
		free(s);
	}
	s = repeat("printf(\"%d\",", 90, "1", ")", 90);
	CU_ASSERT_EQUAL(pp_expr_compile(s, &env, &e, &err), 0);
	pp_expr_free(e);
	free(s);
}

/* A record cut short, __data_loc words pointing anywhere, no record at all. */
static void test_expr__hostile_record(void)
{
	unsigned long faults;

	tex_setup();
	tex_ctx.raw_sz = 30;
	EQ("prev_pid", 1234);
	EQ("prev_comm == \"bash\"", 1);
	faults = tex_ctx.nr_faults;
	EQ("next_pid", 0);
	EQ("prev_prio", 0);	/* 28 + 4 > 30 */
	EQ("filename_len", 0);
	EQ("filename_offset", 0);
	EQ("ints[1]", 0);
	EQ("*(long *)(prev_comm + 20)", 0);
	EQ("*(char *)(prev_comm + 22)", 0);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, faults + 7);
	STR("next_comm", "");
	STR("filename", "");
	EQ("vals[0]", 0);

	/* __data_loc out of the record, or partly out. */
	tex_setup();
	*(uint32_t *)(tex_rec + 64) = 100u << 16 | 128;
	STR("filename", "");
	EQ("filename[0]", 0);
	EQ("filename_len", 0);
	*(uint32_t *)(tex_rec + 64) = 1u << 16 | 0xffff;
	STR("filename", "");
	EQ("filename ~ \"*\"", 1);
	*(uint32_t *)(tex_rec + 68) = 0xffffu << 16 | 140;
	EQ("vals[2]", 0);
	EQ("vals_len", 0);

	/* A string without its NUL at the end of the record is cut there. */
	tex_setup();
	memcpy(tex_rec + 148, "xxxx", 4);
	*(uint32_t *)(tex_rec + 64) = 4u << 16 | 148;
	STR("filename", "xxxx");
	EQ("filename ~ \"x*\"", 1);
	EQ("filename == \"xxxx\"", 1);
	EQ("strncmp(filename, \"xxxxx\", 10) < 0", 1);
	EQ("printf(\"%s|\", filename)", 5);
	memcpy(tex_rec + 40, "0123456789abcdef", 16);	/* next_comm: no NUL in the field */
	STR("next_comm", "0123456789abcdef");

	/* No record at all. */
	tex_setup();
	tex_ctx.raw = NULL;
	tex_ctx.raw_sz = 0;
	EQ("prev_pid + next_pid", 0);
	STR("prev_comm", "");
	EQ("prev_comm == \"\"", 1);
	EQ("prev_comm[0]", 0);
	EQ("*prev_comm", 0);
	EQ("filename_len", 0);
	EQ("_cpu", 3);
}

/* Random records through every kind of access, random sources through the compiler. */
static void test_expr__hostile_random(void)
{
	static const char *const exprs[] = {
		"prev_pid + next_pid * common_pid", "prev_comm ~ \"*a*b*[a-z]?\"",
		"filename == \"x\" || filename_len > 3", "vals[prev_pid & 7] + ints[next_pid & 7]",
		"printf(\"%s %d %s\", filename, vals[1], prev_comm)", "*(long *)(prev_comm + uc)",
		"strncmp(filename, next_comm, 100)", "bytes[sc] + *(prev_comm + sval)",
		"(((address>>18)&1)?42:0) + ((address>>12)&0x3f)", "filename[common_pid & 31]",
	};
	static const char alphabet[] = "()[]+-*/%<>=!~&|^?:,'\"\\ 019xaz_#.{}";
	static const char *const words[] = { "prev_pid", "prev_comm", "filename", "vals",
					     "printf(", "sizeof", "(int)", "(char *)", "CPUS{",
					     "\"s\"", "0x7f", "key", "_cpu", "ints" };
	struct pp_expr_env env = tex_env(0);
	struct pp_expr *progs[PP_ARRAY_SIZE(exprs)];
	struct pp_parse_error err;
	FILE *null = fopen("/dev/null", "w");
	unsigned seed = 12345;
	char text[64];

	tex_setup();
	tex_ctx.out = null;
	for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++)
		CU_ASSERT_EQUAL_FATAL(pp_expr_compile(exprs[i], &env, &progs[i], &err), 0);
	for (int round = 0; round < 3000; round++) {
		for (size_t i = 0; i < TEX_REC_SZ; i++)
			tex_rec[i] = (uint8_t)rand_r(&seed);
		tex_ctx.raw_sz = (uint32_t)rand_r(&seed) % (TEX_REC_SZ + 1);
		for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++)
			pp_expr_eval(progs[i], &tex_ctx);
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++)
		pp_expr_free(progs[i]);

	tex_setup();
	tex_ctx.out = null;
	for (int round = 0; round < 20000; round++) {
		size_t n = 0, want = (size_t)rand_r(&seed) % 40;
		struct pp_expr *e;
		int ret;

		while (n < want) {
			if (rand_r(&seed) % 3 == 0) {
				const char *w = words[rand_r(&seed) % PP_ARRAY_SIZE(words)];

				if (n + strlen(w) >= want)
					break;
				memcpy(text + n, w, strlen(w));
				n += strlen(w);
			} else {
				text[n++] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
			}
		}
		text[n] = '\0';
		ret = round & 1 ? pp_filter_compile(text, &env, &e, &err) :
				  pp_expr_compile(text, &env, &e, &err);
		if (ret == 0) {
			pp_expr_eval(e, &tex_ctx);
			pp_expr_free(e);
		} else {
			CU_ASSERT_TRUE(err.pos >= 0 && err.pos <= (int)n);
			CU_ASSERT_TRUE(err.msg[0] != '\0');
		}
	}
	fclose(null);
}

static void test_expr__dump_trace(void)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_buf b = PP_BUF_INIT;
	struct pp_expr *e;

	tex_setup();
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("next_pid ? prev_comm[1] : \"x\" == \"y\"", &env, &e,
					      &err), 0);
	pp_expr_dump(e, &b);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "LDRAW   off=56 size=4 signed  # next_pid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b),
				      "IDX     off=8 size=1 signed n=16  # prev_comm"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "STR    \"y\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "JZ"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "RET"));
	CU_ASSERT_PTR_NULL(strstr(pp_buf_str(&b), "NOP"));
	pp_buf_reset(&b);
	CU_ASSERT_EQUAL(pp_expr_eval_trace(e, &tex_ctx, &b), 'a');
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "-> 5678 (0x162e)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "-> 97 (0x61)"));
	CU_ASSERT_PTR_NULL(strstr(pp_buf_str(&b), "STREQ"));	/* not executed */
	pp_expr_free(e);

	/* Constants are folded. */
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("prev_pid + ('a' - 1) * (int)2L", &env, &e, &err), 0);
	pp_buf_reset(&b);
	pp_expr_dump(e, &b);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "IMM     192  # 'a'"));
	CU_ASSERT_PTR_NULL(strstr(pp_buf_str(&b), "MUL"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), ": 5 instructions"));
	CU_ASSERT_EQUAL(pp_expr_eval(e, &tex_ctx), 1234 + 192);
	pp_expr_free(e);
	pp_buf_release(&b);
}

static void test_expr__flags(void)
{
	static const struct {
		const char *text;
		unsigned flags;
		bool str;
	} cases[] = {
		{ "1", 0, false },
		{ "prev_pid", PP_EXPR_USES_FIELDS, false },
		{ "prev_comm ~ \"x\"", PP_EXPR_USES_FIELDS | PP_EXPR_USES_ARRAY, false },
		{ "prev_comm", PP_EXPR_USES_FIELDS | PP_EXPR_USES_ARRAY, true },
		{ "printf(\"\")", PP_EXPR_USES_PRINTF, false },
		{ "ksymbol(1)", PP_EXPR_USES_CALLBACK, true },
		{ "key", PP_EXPR_USES_VARS, false },
		{ "sizeof(prev_comm)", 0, false },
		{ "_cpu ? \"a\" : \"b\"", 0, true },
		{ "prev_pid++", PP_EXPR_USES_FIELDS | PP_EXPR_USES_ASSIGN, false },
		{ "prev_comm[0] = 'x', prev_comm", PP_EXPR_USES_FIELDS | PP_EXPR_USES_ARRAY |
						     PP_EXPR_USES_ASSIGN, true },
	};
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e;
	char buf[8];

	tex_setup();
	for (size_t i = 0; i < PP_ARRAY_SIZE(cases); i++) {
		CU_ASSERT_EQUAL_FATAL(pp_expr_compile(cases[i].text, &env, &e, &err), 0);
		CU_ASSERT_EQUAL(pp_expr_flags(e), cases[i].flags);
		CU_ASSERT_EQUAL(pp_expr_is_string(e), cases[i].str);
		if (!cases[i].str)
			CU_ASSERT_EQUAL(pp_expr_eval_str(e, &tex_ctx, buf, sizeof(buf)), PP_ETYPE);
		pp_expr_free(e);
	}
	CU_ASSERT_PTR_EQUAL(pp_field_find(tex_fields, tex_nr_fields, "next_pid"), &tex_fields[9]);
	CU_ASSERT_PTR_NULL(pp_field_find(tex_fields, tex_nr_fields, "next_pi"));
}

/* Evaluation allocates nothing; report what one costs. */
static void test_expr__speed(void)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e, *f, *g;
	struct timespec t0, t1, t2, t3;
	struct mallinfo2 m0, m1;
	const int n = 1000000;
	int64_t sum = 0, sum2 = 0;
	double ns, ns2;

	tex_setup();
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("(((address>>18)&1)?42:0) + ((address>>12)&0x3f)",
					      &env, &e, &err), 0);
	CU_ASSERT_EQUAL_FATAL(pp_filter_compile("prev_comm ~ ba* && next_pid > 100 || "
						"comm_get(_pid) == \"python3\"", &env, &f, &err),
			      0);
	/* An assignment: the same, on a copy of the record. */
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("prev_pid = prev_pid + 1, prev_comm[0]++, prev_pid",
					      &env, &g, &err), 0);
	m0 = mallinfo2();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++)
		sum += pp_expr_eval(e, &tex_ctx);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int i = 0; i < n; i++)
		sum += pp_filter_match(f, &tex_ctx);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	for (int i = 0; i < n; i++)
		sum2 += pp_expr_eval(g, &tex_ctx);
	clock_gettime(CLOCK_MONOTONIC, &t3);
	m1 = mallinfo2();
	CU_ASSERT_EQUAL(sum, 48ll * n);
	CU_ASSERT_EQUAL(sum2, 1235ll * n);	/* each run starts from the record */
	CU_ASSERT_EQUAL(m0.uordblks, m1.uordblks);
	CU_ASSERT_EQUAL(m0.hblkhd, m1.hblkhd);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
	ns2 = ((double)(t3.tv_sec - t2.tv_sec) * 1e9 + (double)(t3.tv_nsec - t2.tv_nsec)) / n;
	printf("\n    expr: %.1f ns per evaluation of the key example (%d runs, no allocation)\n",
	       ns, n);
	printf("    expr: %.1f ns per evaluation of an assignment on a %d-byte record\n", ns2,
	       TEX_REC_SZ);
	pp_expr_free(e);
	pp_expr_free(f);
	pp_expr_free(g);
}

const struct pp_test *test_expr__more(size_t *nr)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_expr__filters, "kernel filter syntax and expressions mixed"),
		PP_TEST(test_expr__generated_filters, "filters generated from comm and pid lists"),
		PP_TEST(test_expr__errors, "compile errors with their exact positions"),
		PP_TEST(test_expr__limits, "deep nesting and huge sources fail cleanly"),
		PP_TEST(test_expr__hostile_record, "short and corrupt records never read outside"),
		PP_TEST(test_expr__hostile_random, "random records and random sources"),
		PP_TEST(test_expr__dump_trace, "program listing and execution trace"),
		PP_TEST(test_expr__flags, "what an expression uses, string results"),
		PP_TEST(test_expr__speed, "evaluation cost, without allocation"),
	};

	*nr = PP_ARRAY_SIZE(tests);
	return tests;
}
