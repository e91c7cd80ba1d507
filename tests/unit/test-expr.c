/* SPDX-License-Identifier: MIT */
/*
 * test-expr.c - the expression language: literals, operators, C conversions, fields, strings,
 * arrays, pointers, globs, built-ins and the perf-prof examples, on a fake sched_switch record.
 * Filters, errors, hostile input and speed are in test-expr-filter.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "tests/unit/expr-fields.h"
#include "tests/unit/test-expr.h"

const struct pp_field tex_fields[] = {
	TEX_SCHED_FIELDS
};
const size_t tex_nr_fields = PP_ARRAY_SIZE(tex_fields);
uint8_t tex_rec[TEX_REC_SZ];
struct pp_expr_ctx tex_ctx;
uint64_t tex_vars[2];

static const char *const var_names[] = { "key", "period" };
static FILE *devnull;

static const char *stub_ksymbol(void *priv, uint64_t addr)
{
	return addr == 0xffffffff81000000ull ? "do_sys_open" : NULL;
}

static const char *stub_comm_get(void *priv, int pid)
{
	return pid == 42 ? "python3" : pid == 1 ? "systemd" : NULL;
}

static const char *stub_syscall_name(void *priv, int id)
{
	return id == 0 ? "read" : id == 1 ? "write" : NULL;
}

static const struct pp_expr_ops stub_ops = { stub_ksymbol, stub_comm_get, stub_syscall_name };

static void put(size_t off, const void *p, size_t n)
{
	memcpy(tex_rec + off, p, n);
}

#define PUT(off, type, v)                                                                  \
	do {                                                                               \
		type x_ = (v);                                                             \
		put(off, &x_, sizeof(x_));                                                 \
	} while (0)

void tex_setup(void)
{
	static const uint16_t vals[3] = { 1, 0x8000, 0xffff };
	static const int32_t ints[4] = { -1, 2, -3, 4 };

	memset(tex_rec, 0, sizeof(tex_rec));
	PUT(0, uint16_t, 316);
	PUT(2, uint8_t, 1);
	PUT(3, uint8_t, 2);
	PUT(4, int32_t, 42);
	put(8, "bash", 5);
	PUT(24, int32_t, 1234);
	PUT(28, int32_t, 120);
	PUT(32, int64_t, 1);
	put(40, "python3", 8);
	PUT(56, int32_t, 5678);
	PUT(60, int32_t, 100);
	PUT(64, uint32_t, 17u << 16 | 128);
	PUT(68, uint32_t, 6u << 16 | 145);
	for (int i = 0; i < 8; i++)
		PUT(72 + i, uint8_t, 0xf0 + i);
	put(80, ints, sizeof(ints));
	PUT(96, uint64_t, 1u << 18 | 5u << 12);
	PUT(104, uint32_t, 3);
	PUT(108, int16_t, -2);
	PUT(110, uint8_t, 200);
	PUT(111, int8_t, -5);
	PUT(112, uint64_t, 0xffff888012345678ull);
	PUT(120, uint64_t, 0xfffffffffffffff0ull);
	put(128, "/usr/bin/python3", 17);
	put(145, vals, sizeof(vals));

	tex_vars[0] = 7ull << 32 | 9;
	tex_vars[1] = 100;
	memset(&tex_ctx, 0, sizeof(tex_ctx));
	tex_ctx.raw = tex_rec;
	tex_ctx.raw_sz = sizeof(tex_rec);
	tex_ctx.cpu = 3;
	tex_ctx.pid = 42;
	tex_ctx.tid = 43;
	tex_ctx.time_ns = 1000000;
	tex_ctx.vars = tex_vars;
	tex_ctx.ops = &stub_ops;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	tex_ctx.out = devnull;	/* printf() output goes nowhere unless captured */
}

struct pp_expr_env tex_env(unsigned flags)
{
	struct pp_expr_env env = { tex_fields, tex_nr_fields, var_names, 2, flags };

	return env;
}

static struct pp_expr *compile_at(const char *text, bool filter, const char *file, int line)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e = NULL;
	int ret = filter ? pp_filter_compile(text, &env, &e, &err) :
			   pp_expr_compile(text, &env, &e, &err);

	if (ret)
		fprintf(stderr, "\n  line %d: '%s': %s at %d (%s)\n", line, text, err.msg, err.pos,
			pp_strerror(ret));
	CU_assertImplementation(ret == 0, line, text, file, "", CU_FALSE);
	return e;
}

int64_t tex_eval(const char *text, bool filter, const char *file, int line)
{
	struct pp_expr *e = compile_at(text, filter, file, line);
	int64_t v;

	if (!e)
		return INT64_MIN + 12345;
	v = pp_expr_eval(e, &tex_ctx);
	pp_expr_free(e);
	return v;
}

void tex_eval_str(const char *text, const char *want, const char *file, int line)
{
	struct pp_expr *e = compile_at(text, false, file, line);
	char buf[64];
	int ret;

	if (!e)
		return;
	CU_assertImplementation(pp_expr_is_string(e), line, "is a string", file, "",
				CU_FALSE);
	ret = pp_expr_eval_str(e, &tex_ctx, buf, sizeof(buf));
	if (ret || strcmp(buf, want))
		fprintf(stderr, "\n  line %d: '%s' gave '%s'\n", line, text, buf);
	CU_assertImplementation(!ret && !strcmp(buf, want), line, text, file, "", CU_FALSE);
	pp_expr_free(e);
}

void tex_bad(const char *text, bool filter, int code, int pos, const char *msg, const char *file,
	     int line)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_expr *e = (struct pp_expr *)1;
	int ret = filter ? pp_filter_compile(text, &env, &e, &err) :
			   pp_expr_compile(text, &env, &e, &err);
	bool ok = ret == code && err.pos == pos && strstr(err.msg, msg) && !e;

	if (!ok)
		fprintf(stderr, "\n  line %d: '%.60s': got %d (%s) at %d '%s'\n", line, text, ret,
			pp_strerror(ret), err.pos, err.msg);
	CU_assertImplementation(ok, line, "the expected compile error", file, "", CU_FALSE);
	if (ret == 0)
		pp_expr_free(e);
}

/* Run @text with printf output captured; compare the output. */
static void printf_check(const char *text, const char *want, const char *file, int line)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len), *saved = tex_ctx.out;
	int64_t ret;

	tex_ctx.out = f;
	ret = tex_eval(text, false, file, line);
	fclose(f);
	tex_ctx.out = saved;
	if (strcmp(out, want))
		fprintf(stderr, "\n  line %d: '%s' printed '%s'\n", line, text, out);
	CU_assertImplementation(!strcmp(out, want), line, text, file, "", CU_FALSE);
	/* A lone printf() returns what it printed. */
	if (!strncmp(text, "printf(", 7) && text[strlen(text) - 1] == ')' && !strchr(text, ','))
		CU_assertImplementation(ret == (int64_t)strlen(want), line, "printf's return",
					file, "", CU_FALSE);
	free(out);
}

#define PF(text, want) printf_check(text, want, __FILE__, __LINE__)

static void test_expr__literals(void)
{
	tex_setup();
	EQ("0", 0);
	EQ("42", 42);
	EQ("0x1f", 31);
	EQ("0X1F", 31);
	EQ("017", 15);
	EQ("'a'", 97);
	EQ("'\\n'", 10);
	EQ("'\\x41'", 65);
	EQ("'\\101'", 65);
	EQ("'\\''", 39);
	EQ("'\\xff'", -1);
	EQ("0xffffffff", 4294967295);
	EQ("0xffffffff + 1", 0);
	EQ("4294967295 + 1", 4294967296);
	EQ("2147483647 + 1", -2147483648);
	EQ("2147483648", 2147483648);
	EQ("1u - 2", 4294967295);
	EQ("1ul - 2", -1);
	EQ("1LU + 1ll", 2);
	EQ("18446744073709551615", -1);
	EQ("0xffffffffffffffff == -1", 1);
	EQ("sizeof(\"abc\")", 4);
	EQ("\"ab\" \"c\" == \"abc\"", 1);
	EQ("strncmp(\"a\\tb\\\\\", \"a\\x09b\\134\", 9)", 0);
	EQ("\"\\101\\x42\\e\"[2]", 27);
	EQ("1 + # comment\n 2", 3);
	EQ("1 // comment\n + 2", 3);
	EQ("1 /* comment */ + 2", 3);
}

static void test_expr__operators(void)
{
	tex_setup();
	EQ("1 + 2 * 3", 7);
	EQ("(1 + 2) * 3", 9);
	EQ("10 - 3 - 2", 5);
	EQ("100 / 10 / 5", 2);
	EQ("7 % 3", 1);
	EQ("-7 / 2", -3);
	EQ("-7 % 2", -1);
	EQ("1 << 2 + 1", 8);
	EQ("1 + 2 << 1", 6);
	EQ("1 < 2 == 1", 1);
	EQ("3 > 2 > 1", 0);
	EQ("2 <= 2", 1);
	EQ("3 >= 4", 0);
	EQ("2 != 2", 0);
	EQ("1 | 2 ^ 3 & 4", 3);
	EQ("6 & 3", 2);
	EQ("6 | 3", 7);
	EQ("6 ^ 3", 5);
	EQ("1 || 0 && 0", 1);
	EQ("(1 || 0) && 0", 0);
	EQ("5 && 7", 1);
	EQ("2 || 0", 1);
	EQ("0 || 0", 0);
	EQ("!0 + !5", 1);
	EQ("!!5", 1);
	EQ("~0", -1);
	EQ("~5 & 0xff", 250);
	EQ("-(-3)", 3);
	EQ("+-3", -3);
	EQ("- -3", 3);
	EQ("1 ? 2 : 3", 2);
	EQ("0 ? 2 : 3", 3);
	EQ("0 ? 2 : 0 ? 4 : 5", 5);
	EQ("1 ? 0 ? 6 : 7 : 8", 7);
	EQ("(1, 2, 3)", 3);
	EQ("1, 2", 2);
	EQ("1 + 2 == 3 && 4 > 3 || 0", 1);
	EQ("prev_pid > 1000 ? prev_pid - 1000 : 0", 234);
	EQ("0 ? 1u : -1", 4294967295);	/* ?: converts both arms */
	EQ("1 ? -1 : 1u", 4294967295);
	EQ("1 ? -1 : 1L", -1);
	/* Constant parts are folded at compile time; jumps around them still land. */
	EQ("prev_pid ? 1 + 2 : 3 * 4", 3);
	EQ("next_pid - 5678 ? 1 + 2 : 3 * 4 - -1", 13);
	EQ("0 ? 1 : 2 + 3", 5);
	EQ("prev_pid && 2 - 2", 0);
	EQ("-(-2147483647 - 1)", -2147483648);
	EQ("~0u >> 31", 1);
	EQ("!(1 - 1) + (char)(255 + 2)", 2);
}

static void test_expr__conversions(void)
{
	tex_setup();
	EQ("(unsigned)-1", 4294967295);
	EQ("(char)300", 44);
	EQ("(unsigned char)-1", 255);
	EQ("(short)65535", -1);
	EQ("(unsigned short)-1", 65535);
	EQ("(int)0x80000000", -2147483648);
	EQ("(long)(int)0xffffffff", -1);
	EQ("(u8)0x1ff", 255);
	EQ("(s16)0x8000", -32768);
	EQ("(u64)-1 > 0", 1);
	EQ("(long long)5 + (unsigned long int)1", 6);
	EQ("(unsigned long)1 << 63 >> 63", 1);
	EQ("1L << 63 >> 63", -1);
	EQ("1L << 65", 2);	/* counts are taken modulo 64 */
	EQ("-16 >> 2", -4);
	EQ("(unsigned)-16 >> 2", 1073741820);
	EQ("-1 < 0u", 0);
	EQ("-1L < 0u", 1);
	EQ("-1 > 1u", 1);
	EQ("-1 < 1", 1);
	EQ("uc > sc", 1);
	EQ("uc + sc", 195);
	EQ("-1 / 2u", 2147483647);
	EQ("-1 % 10u", 5);
	EQ("5 / 0", 0);
	EQ("5 % 0", 0);
	EQ("(-9223372036854775807L - 1) / -1", INT64_MIN);
	EQ("(-9223372036854775807L - 1) % -1", 0);
	EQ("0x7fffffff * 2", -2);
	EQ("0x7fffffffL * 2", 4294967294);
	EQ("sizeof(int)", 4);
	EQ("sizeof(char)", 1);
	EQ("sizeof(short)", 2);
	EQ("sizeof(long)", 8);
	EQ("sizeof(unsigned long long)", 8);
	EQ("sizeof(char *)", 8);
	EQ("sizeof(void)", 1);
	EQ("sizeof prev_pid", 4);
	EQ("sizeof(prev_comm)", 16);
	EQ("sizeof(ints)", 16);
	EQ("sizeof(ints[0])", 4);
	EQ("sizeof(1 + 1L)", 8);
	EQ("sizeof(uc + uc)", 4);
	EQ("sizeof(printf(\"no\"))", 4);	/* not evaluated */
	EQ("-sizeof(int) > 0", 1);
}

static void test_expr__fields(void)
{
	tex_setup();
	EQ("common_type", 316);
	EQ("common_flags", 1);
	EQ("common_preempt_count", 2);
	EQ("common_pid", 42);
	EQ("prev_pid", 1234);
	EQ("prev_prio", 120);
	EQ("prev_state", 1);
	EQ("next_pid", 5678);
	EQ("next_prio", 100);
	EQ("order", 3);
	EQ("sval", -2);
	EQ("sval < 0", 1);
	EQ("(unsigned short)sval", 65534);
	EQ("uc", 200);
	EQ("sc", -5);
	EQ("ptr", 0xffff888012345678ull);
	EQ("ptr > 0", 1);
	EQ("big", -16);
	EQ("big > 0", 1);
	EQ("address", 0x45000);
	EQ("next_pid - prev_pid", 4444);
	EQ("_cpu", 3);
	EQ("_pid", 42);
	EQ("_tid", 43);
	EQ("_time", 1000000);
	EQ("key", 7ll << 32 | 9);
	EQ("key >> 32", 7);
	EQ("(int)key", 9);
	EQ("period * 2", 200);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);
}

static void test_expr__strings_arrays(void)
{
	unsigned long faults;

	tex_setup();
	EQ("prev_comm == \"bash\"", 1);
	EQ("\"bash\" == prev_comm", 1);
	EQ("prev_comm != \"bash\"", 0);
	EQ("prev_comm == next_comm", 0);
	EQ("prev_comm == \"bas\"", 0);
	EQ("prev_comm == \"bashx\"", 0);
	EQ("next_comm == \"python3\"", 1);
	EQ("prev_comm[0]", 'b');
	EQ("prev_comm[4]", 0);
	EQ("prev_comm[1 + 1]", 's');
	EQ("(prev_comm)[3]", 'h');
	EQ("*prev_comm", 'b');
	EQ("*(prev_comm + 1)", 'a');
	EQ("(prev_comm + 1)[1]", 's');
	EQ("bytes[0]", 0xf0);
	EQ("bytes[7]", 0xf7);
	EQ("ints[0]", -1);
	EQ("ints[2]", -3);
	EQ("ints[3]", 4);
	EQ("*(ints + 1)", 2);
	EQ("ints[1] + ints[3]", 6);
	EQ("filename == \"/usr/bin/python3\"", 1);
	EQ("filename_len", 17);
	EQ("filename_offset", 128);
	EQ("filename[5]", 'b');
	EQ("vals[0]", 1);
	EQ("vals[1]", 0x8000);
	EQ("vals[2]", 65535);
	EQ("vals_len", 6);
	EQ("strncmp(prev_comm, \"bax\", 2)", 0);
	EQ("strncmp(prev_comm, \"bax\", 3) < 0", 1);
	EQ("strncmp(next_comm, \"python\", 6)", 0);
	EQ("strncmp(next_comm, \"python\", 7) > 0", 1);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);

	/* Indexes are checked against the field, not only the record. */
	faults = tex_ctx.nr_faults;
	EQ("prev_comm[16]", 0);
	EQ("bytes[8]", 0);
	EQ("ints[-1]", 0);
	EQ("ints[4]", 0);
	EQ("filename[17]", 0);
	EQ("vals[3]", 0);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, faults + 6);

	STR("prev_comm", "bash");
	STR("filename", "/usr/bin/python3");
	STR("next_pid ? next_comm : prev_comm", "python3");
	STR("prev_comm + 2", "sh");
	STR("\"lit\"", "lit");
	STR("(char *)0", "");
	STR("1, prev_comm", "bash");
}

static void test_expr__pointers(void)
{
	tex_setup();
	EQ("*&prev_pid", 1234);
	EQ("*(short *)&sval", -2);
	EQ("*(unsigned char *)&sval", 254);
	EQ("*(int *)&address", 0x45000);
	EQ("&next_pid - &prev_pid", 8);
	EQ("(char *)&next_pid - (char *)&prev_pid", 32);
	EQ("*(&prev_pid + 8)", 5678);
	EQ("*(long *)(prev_comm + 0) != 0", 1);
	EQ("*(char **)&ptr != 0", 1);
	EQ("prev_comm < next_comm", 1);
	EQ("&*prev_comm == prev_comm", 1);
	EQ("&prev_comm == prev_comm", 1);
	/* Kernel pointers and made-up addresses read as 0. */
	EQ("**(char **)&ptr", 0);
	EQ("*(char *)12345", 0);
	EQ("*(long *)ptr", 0);
}

static void test_expr__globs(void)
{
	tex_setup();
	EQ("prev_comm ~ \"ba*\"", 1);
	EQ("prev_comm ~ \"*sh\"", 1);
	EQ("prev_comm ~ \"b?sh\"", 1);
	EQ("prev_comm ~ \"[a-c]ash\"", 1);
	EQ("prev_comm ~ \"[!x]ash\"", 1);
	EQ("prev_comm ~ \"[^b]ash\"", 0);
	EQ("prev_comm ~ \"[xyz]ash\"", 0);
	EQ("prev_comm ~ \"bash?\"", 0);
	EQ("next_comm ~ \"py*[0-9]\"", 1);
	EQ("filename ~ \"*/python?\"", 1);
	EQ("comm_get(_pid) ~ \"python*\"", 1);
	EQ("prev_comm ~ \"ba*\" == 1", 1);
	EQ("!(prev_comm ~ \"z*\")", 1);
	EQ("\"x\" ~ prev_comm", 0);
}

static void test_expr__short_circuit(void)
{
	tex_setup();
	PF("0 && printf(\"x\")", "");
	PF("1 || printf(\"y\")", "");
	PF("1 && printf(\"z\")", "z");
	PF("0 ? printf(\"a\") : printf(\"b\")", "b");
	PF("printf(\"1\"), printf(\"2\")", "12");
	EQ("1 && printf(\"\")", 0);
}

static void test_expr__builtins(void)
{
	tex_setup();
	EQ("ntohl(0x01020304)", 0x04030201);
	EQ("ntohl(0x80)", 0x80000000u);
	EQ("ntohs(0x0102)", 0x0201);
	EQ("ntohs(0x8001)", 0x0180);
	STR("ksymbol(0xffffffff81000000)", "do_sys_open");
	STR("ksymbol(1)", "");
	STR("comm_get(42)", "python3");
	STR("comm_get(_pid + 1)", "");
	STR("syscall_name(1)", "write");
	STR("exit_reason_str(1, 48)", "EPT_VIOLATION");
	STR("exit_reason_str(1, 0x80000030)", "EPT_VIOLATION");
	STR("exit_reason_str(2, 0x400)", "npf");
	STR("exit_reason_str(3, 0x16)", "HVC64");
	STR("exit_reason_str(1, 999)", "UNKNOWN");
	EQ("ksymbol(0xffffffff81000000) == \"do_sys_open\"", 1);
	EQ("comm_get(1) == comm_get(1)", 1);
	EQ("comm_get(1)[1]", 'y');
	EQ("comm_get(1) == comm_get(42)", 0);
	/* More callback strings than slots: each comparison reads live ones. */
	{
		struct pp_buf b = PP_BUF_INIT;

		for (int i = 0; i < 3 * 16; i++)
			pp_buf_addf(&b, "%scomm_get(1) == \"systemd\"", i ? " && " : "");
		EQ(pp_buf_str(&b), 1);
		pp_buf_release(&b);
	}
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_str(1, 12), "HLT");
	CU_ASSERT_STRING_EQUAL(pp_exit_reason_str(2, 0x7c), "msr");
	CU_ASSERT_PTR_NULL(pp_exit_reason_str(4, 0));

	/* Without callbacks the answers are NULL: empty strings. */
	tex_ctx.ops = NULL;
	STR("comm_get(42)", "");
	STR("syscall_name(0)", "");
	EQ("ksymbol(0xffffffff81000000) == \"\"", 1);
}

static void test_expr__printf(void)
{
	char *want = malloc(1025);

	tex_setup();
	PF("printf(\"abc\")", "abc");
	PF("printf(\"%d %s|%5d|%-5d|%03d\", prev_pid, prev_comm, 7, 7, 7)",
	   "1234 bash|    7|7    |007");
	PF("printf(\"%x %X %#x %o %u\", 255, 255, 255, 8, -1)", "ff FF 0xff 10 4294967295");
	PF("printf(\"%ld %lu %lx\", big, big, big)", "-16 18446744073709551600 fffffffffffffff0");
	PF("printf(\"%d %i\", big, 0x100000001)", "-16 1");
	PF("printf(\"%hhd %hd %hu %+d % d\", 511, 65535, -1, 5, 5)", "-1 -1 65535 +5  5");
	PF("printf(\"%c%c\", 'o', 107)", "ok");
	PF("printf(\"100%%\")", "100%");
	PF("printf(\"%f %n %q|\", 1, 2)", "%f %n %q|");
	PF("printf(\"%*d|%-*d|%.2s\", 4, 1, 3, 2, prev_comm)", "   1|2  |ba");
	PF("printf(\"%.*s|%-*d|\", 1, next_comm, -3, 5)", "p|5  |");
	PF("printf(\"%s %s.\", filename)", "/usr/bin/python3 .");
	PF("printf(\"%10s|%-6s|\", prev_comm, prev_comm)", "      bash|bash  |");
	PF("printf(\"%d\")", "0");
	PF("printf(\"%s\", 12345)", "");
	PF("printf(\"trailing %\")", "trailing %");
	PF("printf(\"%s=%s\", ksymbol(0xffffffff81000000), comm_get(1))", "do_sys_open=systemd");
	PF("printf(\"%d %d %d %d %d %d\", 1, 2, 3, 4, 5, 6)", "1 2 3 4 5 6");
	PF("printf(prev_comm)", "bash");
	memset(want, ' ', 1023);
	strcpy(want + 1023, "1");
	PF("printf(\"%99999d\", 1)", want);	/* widths are capped */
	free(want);
}

static void test_expr__system(void)
{
	struct pp_expr_env env = tex_env(PP_EXPR_ALLOW_SYSTEM);
	struct pp_parse_error err;
	struct pp_expr *e;

	tex_setup();
	BAD("system(\"ls\")", PP_EOFFLINE, 0, "system() runs only live (pp ANALYZER): not when replaying a capture");
	BAD("1 + system(\"ls\")", PP_EOFFLINE, 4, "system()");
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("system(\"exit %d\", order)", &env, &e, &err), 0);
	CU_ASSERT_EQUAL(pp_expr_eval(e, &tex_ctx), 3 << 8);
	CU_ASSERT_TRUE(pp_expr_flags(e) & PP_EXPR_USES_PRINTF);
	pp_expr_free(e);
	/* %s and %c reach the shell as one quoted word each: no injection from a comm */
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("system(\"test %s = \\\"a'b;exit 7\\\"\", \"a'b;exit 7\")",
					      &env, &e, &err), 0);
	CU_ASSERT_EQUAL(pp_expr_eval(e, &tex_ctx), 0);
	pp_expr_free(e);
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("system(\"test %c = ';'\", 59)", &env, &e, &err), 0);
	CU_ASSERT_EQUAL(pp_expr_eval(e, &tex_ctx), 0);
	pp_expr_free(e);
}

/*
 * perf-prof's tests/test_expr.py cases for =, ++, -- and ',', on the fixture
 * (pid -> prev_pid 1234, prio -> prev_prio 120, target_cpu -> next_pid 5678,
 * success -> prev_prio, comm -> prev_comm "bash"), with the values perf-prof's
 * expr.c gives: the field changes for the rest of the expression only.
 */
static void test_expr__assign_perf_prof(void)
{
	uint8_t saved[TEX_REC_SZ];

	tex_setup();
	memcpy(saved, tex_rec, sizeof(saved));
	EQ("++prev_pid", 1235);					/* u4 */
	EQ("++prev_pid, prev_pid", 1235);
	EQ("++(unsigned int)prev_pid", 1235);			/* u5 */
	EQ("(unsigned int)++prev_pid", 1235);			/* u6 */
	EQ("(unsigned int)prev_pid++", 1234);			/* u13 */
	EQ("(unsigned int)prev_pid++, prev_pid", 1235);
	EQ("((unsigned long)prev_pid)++", 1234);		/* u14 */
	EQ("((unsigned long)prev_pid)++, prev_pid", 1235);
	EQ("((unsigned int *)prev_pid)++", 1234);		/* u15: steps by 4 */
	EQ("((unsigned int *)prev_pid)++, prev_pid", 1238);
	EQ("((unsigned int **)prev_pid)++, prev_pid", 1242);	/* u16: by 8 */
	PF("printf(\"++pid=%d, --pid=%d \", ++prev_pid, --prev_pid)",	/* sched_wakeup6 */
	   "++pid=1235, --pid=1234 ");
	PF("prev_pid=100,prev_prio=0,prev_comm[0]='A',"			/* sched_wakeup7 */
	   "printf(\"pid=%d, success=%d, comm=%s \", prev_pid, prev_prio, prev_comm)",
	   "pid=100, success=0, comm=Aash ");
	PF("printf(\"pid=%d, pid++=%d, pid--=%d, pid=%d \", "		/* sched_wakeup13 */
	   "prev_pid, prev_pid++, prev_pid--, prev_pid)",
	   "pid=1234, pid++=1234, pid--=1235, pid=1234 ");
	EQ("prev_pid++ + prev_prio", 1354);			/* precedence_1 */
	EQ("prev_pid = next_pid = 1000", 1000);			/* precedence_8 */
	EQ("prev_pid = next_pid = 1000, prev_pid + next_pid", 2000);
	EQ("prev_pid = 100, prev_prio = 50, next_pid", 5678);	/* comma_operator */
	EQ("prev_pid = 100, prev_prio = 50, prev_pid + prev_prio", 150);
	EQ("prev_prio = prev_comm ~ \"*as*\", prev_prio", 1);	/* glob_in_assignment */
	EQ("prev_prio = (prev_comm == \"bash\"), prev_prio", 1);
	EQ("prev_prio = (prev_comm != \"bash\"), prev_prio", 0);
	/* Each evaluation starts from the event as recorded, which never changes. */
	EQ("prev_pid", 1234);
	EQ("prev_comm[0]", 'b');
	CU_ASSERT_EQUAL(memcmp(saved, tex_rec, sizeof(saved)), 0);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);
}

/* The C rules around them: types, conversions, precedence, every kind of lvalue. */
static void test_expr__assign(void)
{
	struct pp_expr_env env = tex_env(0);
	struct pp_parse_error err;
	struct pp_buf b = PP_BUF_INIT;
	struct pp_expr *e;
	char buf[32];

	tex_setup();
	/* The value is the field's new value, of its type. */
	EQ("sc = 300", 44);
	EQ("uc = -1", 255);
	EQ("sval = 0x18000, sval", -32768);
	EQ("order = -1, order > 0", 1);
	EQ("prev_state = -1", -1);
	EQ("uc = sval = 0x1ff", 255);
	EQ("uc = sval = 0x1ff, sval", 511);
	EQ("++uc", 201);
	EQ("uc = 255, ++uc", 0);
	EQ("sc = 127, ++sc", -128);
	EQ("sc = -128, sc--", -128);
	EQ("sc = -128, sc--, sc", 127);
	EQ("big++", -16);
	EQ("++big", -15);
	EQ("--prev_pid + prev_pid", 2466);
	EQ("ptr++, ptr - 0xffff888012345678", 1);
	EQ("((int *)ptr)--, 0xffff888012345678 - ptr", 4);
	EQ("(char)prev_pid = 0x141, prev_pid", 0x41);		/* (T)x = y: x = (T)y */
	EQ("(char)prev_pid = 0x1ff", -1);
	/* Through pointers, array fields and __data_loc arrays. */
	EQ("*(int *)&prev_pid = 5, prev_pid", 5);
	EQ("*(short *)&prev_pid = -1, prev_pid", 65535);
	EQ("*(char *)&next_pid = 0, next_pid", 5632);
	EQ("*(&prev_pid + 8) = 9, next_pid", 9);
	EQ("ints[1] = 9, ints[1] + ints[3]", 13);
	EQ("ints[3]++ + ints[3]", 9);
	EQ("bytes[7] = 1, bytes[7]", 1);
	EQ("vals[2]--, vals[2]", 65534);
	EQ("++vals[0] + vals[0]", 4);
	STR("prev_comm[0] = 'c', prev_comm", "cash");
	STR("*prev_comm = 'd', prev_comm", "dash");
	STR("*(prev_comm + 4) = 'x', prev_comm", "bashx");
	STR("filename[0] = 'X', filename", "Xusr/bin/python3");
	STR("(char)prev_comm[1] = 'i', prev_comm", "bish");
	EQ("next_comm[0] = 'P', next_comm ~ \"Py*\"", 1);
	EQ("prev_comm[4] = 'x', prev_comm == \"bashx\"", 1);
	EQ("strncmp((prev_comm[0]++, prev_comm), \"cash\", 9)", 0);
	/* Precedence: below ?: and ||, above ','; right to left. */
	EQ("prev_pid = 1 ? 2 : 3", 2);
	EQ("prev_pid = 0 || 5", 1);
	EQ("prev_pid = next_pid > 5000 ? 3 : 4, prev_pid", 3);
	EQ("1 ? prev_pid = 7 : 0", 7);
	EQ("(prev_pid = 10) * 2 + prev_pid", 30);
	EQ("(prev_pid = 3, prev_pid * 2)", 6);
	EQ("0 && (prev_pid = 1), prev_pid", 1234);
	EQ("next_pid || (prev_pid = 1), prev_pid", 1234);
	PF("prev_pid = 0 && printf(\"x\")", "");
	EQ("-prev_pid++", -1234);
	EQ("!prev_pid--", 0);
	EQ("prev_pid+++prev_pid", 2469);
	/* sizeof does not evaluate. */
	EQ("sizeof(prev_pid = 9) + prev_pid", 1238);
	EQ("sizeof prev_pid++", 4);
	/* In a filter too. */
	FEQ("(prev_pid = 5) == 5 && prev_pid == 5", 1);
	FEQ("prev_pid = 0", 0);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);

	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("sizeof(prev_pid++)", &env, &e, &err), 0);
	CU_ASSERT_EQUAL(pp_expr_flags(e), 0);
	pp_expr_free(e);
	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("prev_comm[1] = 'x', ++prev_pid, vals[1]--, "
					      "*(char *)&order = 1, ((long)prev_prio)++", &env, &e,
					      &err), 0);
	CU_ASSERT_EQUAL(pp_expr_flags(e), PP_EXPR_USES_FIELDS | PP_EXPR_USES_ARRAY |
					  PP_EXPR_USES_ASSIGN);
	pp_expr_dump(e, &b);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "IDXADDR off=8 size=1 signed n=16"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "ST      size=1 signed  # ="));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "INC     size=4 signed +1  # ++"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "LOCADDR off=68 size=2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "INC     size=2 -1 post  # --"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "INC     size=4 signed +1 post as 8"));
	CU_ASSERT_PTR_NULL(strstr(pp_buf_str(&b), "LD "));
	pp_buf_reset(&b);
	CU_ASSERT_EQUAL(pp_expr_eval_trace(e, &tex_ctx, &b), 120);
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "-> 1235 (0x4d3)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&b), "-> 32768 (0x8000)"));
	CU_ASSERT_EQUAL(pp_expr_eval_str(e, &tex_ctx, buf, sizeof(buf)), PP_ETYPE);
	pp_expr_free(e);
	pp_buf_release(&b);
}

/* What is not an lvalue, and the operators perf-prof does not have. */
static void test_expr__assign_errors(void)
{
	static const struct {
		const char *text;
		int pos;	/* of the '=' */
	} not_lvalues[] = {
		{ "prev_pid + 1 = 3", 13 }, { "1 = 2", 2 }, { "0 ? 1 : prev_pid = 7", 17 },
		{ "prev_pid || next_pid = 1", 21 }, { "prev_comm = \"x\"", 10 },
		{ "filename = 0", 9 }, { "(1, prev_pid) = 2", 14 }, { "prev_pid++ = 1", 11 },
		{ "++prev_pid = 1", 11 }, { "(prev_pid = 1) = 2", 15 }, { "-prev_pid = 1", 10 },
		{ "(void)prev_pid = 1", 15 }, { "&prev_pid = 0", 10 }, { "_cpu = 1", 5 },
		{ "key = 1", 4 }, { "filename_len = 1", 13 },
	};
	struct pp_buf s = PP_BUF_INIT;

	tex_setup();
	for (size_t i = 0; i < PP_ARRAY_SIZE(not_lvalues); i++)
		BAD(not_lvalues[i].text, PP_ETYPE, not_lvalues[i].pos, "bad lvalue in assignment");
	BAD("prev_pid++ ++", PP_ETYPE, 11, "bad lvalue in post-increment");
	BAD("ksymbol(1)++", PP_ETYPE, 10, "bad lvalue in post-increment");
	BAD("prev_comm--", PP_ETYPE, 9, "bad lvalue in post-decrement");
	BAD("++1", PP_ETYPE, 0, "bad lvalue in pre-increment");
	BAD("1 + --prev_comm", PP_ETYPE, 4, "bad lvalue in pre-decrement");
	BAD("++prev_pid++", PP_ETYPE, 0, "bad lvalue in pre-increment");
	BAD("&(long)prev_pid", PP_ETYPE, 0, "cannot take the address");
	BAD("prev_pid = ", PP_ESYNTAX, 11, "unexpected end");
	BAD("prev_pid = (void)1", PP_ETYPE, 11, "void value");
	BAD("prev_pid += 1", PP_ENOTSUP, 9, "'+=' is not supported");
	BAD("prev_pid <<= 1", PP_ENOTSUP, 9, "write x = x << y");
	BAD("prev_comm[0] |= 1", PP_ENOTSUP, 13, "'|='");

	/* A chain of assignments is nesting: bounded like parentheses. */
	for (int i = 0; i < 200; i++)
		pp_buf_adds(&s, "prev_pid=");
	pp_buf_adds(&s, "7");
	BAD(pp_buf_str(&s), PP_ERANGE, 900, "nested too deeply");
	EQ(pp_buf_str(&s) + 140 * 9, 7);	/* the last 60 */
	pp_buf_release(&s);
}

/*
 * Records cut short, missing or larger than the copy; stores aimed outside
 * the record: nothing is written anywhere but the evaluation's own copy.
 */
static void test_expr__assign_hostile(void)
{
	static const char *const exprs[] = {
		"prev_comm[uc & 31] = sc, ints[sval & 7]++, vals[prev_pid & 7]--, prev_comm",
		"*(long *)(prev_comm + sval) = big, filename[common_pid & 31] = 'x', filename",
		"*(int *)((char *)&common_pid + (next_pid & 255)) = -1, --*(char *)(bytes + uc)",
		"((char *)prev_comm)[order] = 0, ++*(short *)(filename + sval), next_comm",
	};
	struct pp_expr_env env = tex_env(0);
	struct pp_expr *progs[PP_ARRAY_SIZE(exprs)];
	struct pp_parse_error err;
	uint8_t saved[TEX_REC_SZ], *big, *big0;
	const size_t big_sz = 70000;
	unsigned long faults;
	unsigned seed = 4321;

	/* Cut short at 30 bytes: prev_pid (24..28) fits, prev_prio (28..32) does not. */
	tex_setup();
	memcpy(saved, tex_rec, sizeof(saved));
	tex_ctx.raw_sz = 30;
	EQ("prev_pid = 7, prev_pid", 7);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);
	EQ("prev_prio = 1", 1);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 1);
	EQ("next_pid++", 0);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 2);
	EQ("*(int *)(prev_comm + 20) = 1", 1);			/* bytes 28..32 */
	EQ("*(short *)(prev_comm + 21) = 1, prev_comm[16]", 0);	/* past the field */
	EQ("prev_comm[16] = 1", 1);
	EQ("*(char *)(prev_comm - 9) = 1", 1);			/* before the record */
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 7);
	faults = tex_ctx.nr_faults;
	EQ("ints[1] = 3, ints[1]", 0);				/* the store, the read */
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, faults + 2);
	STR("filename[0] = 'x', filename", "");
	EQ("*(char *)(prev_comm + 21) = 'z', *(char *)(prev_comm + 21)", 'z');	/* the last byte */
	CU_ASSERT_EQUAL(memcmp(saved, tex_rec, sizeof(saved)), 0);

	/* Memory that is not the record's copy: string constants, callbacks, anywhere. */
	tex_setup();
	faults = tex_ctx.nr_faults;
	EQ("*(char *)\"abc\" = 1", 1);
	EQ("\"abc\"[0]++", 0);
	EQ("*\"abc\" = 'x', \"abc\" == \"xbc\"", 0);
	STR("*comm_get(42) = 'X', comm_get(42)", "python3");	/* a string literal */
	STR("ksymbol(0xffffffff81000000)[0]++, ksymbol(0xffffffff81000000)", "do_sys_open");
	EQ("*(long *)ptr = 1", 1);
	EQ("*(char *)12345 = 1", 1);
	EQ("(*(char **)&big)[0] = 1", 1);
	EQ("*(long *)(&prev_pid + 100000) = 1", 1);
	EQ("*(long *)(&prev_pid - 100) = 1", 1);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, faults + 10);
	CU_ASSERT_EQUAL(memcmp(saved, tex_rec, sizeof(saved)), 0);

	/* No record at all. */
	tex_setup();
	tex_ctx.raw = NULL;
	tex_ctx.raw_sz = 0;
	EQ("prev_pid = 1", 1);
	EQ("prev_pid++", 0);
	EQ("prev_comm[0] = 'x', prev_comm[0]", 0);
	STR("prev_comm[0] = 'x', prev_comm", "");
	EQ("_cpu + (prev_pid = 1)", 4);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 7);

	/* Larger than the copy: what lies past 64 KiB is outside the record then. */
	big = calloc(1, big_sz);
	big0 = malloc(big_sz);
	tex_setup();
	memcpy(big, tex_rec, TEX_REC_SZ);
	*(uint32_t *)(big + 64) = 16u << 16 | 0xfff8;
	memcpy(big + 0xfff8, "0123456789abcde", 16);
	memcpy(big0, big, big_sz);
	tex_ctx.raw = big;
	tex_ctx.raw_sz = (uint32_t)big_sz;
	STR("filename", "0123456789abcde");
	EQ("filename_len", 16);
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 0);
	EQ("prev_pid = 1, prev_pid + filename_len", 1);
	STR("prev_pid = 1, filename", "");
	EQ("prev_pid = 1, filename[0]", 0);
	EQ("*(prev_comm + 65527) = 'Y', *(prev_comm + 65527)", 'Y');	/* byte 65535 */
	EQ("*(prev_comm + 65528) = 'Y'", 'Y');				/* byte 65536 */
	CU_ASSERT_EQUAL(tex_ctx.nr_faults, 5);
	CU_ASSERT_EQUAL(memcmp(big, big0, big_sz), 0);
	free(big0);
	free(big);

	/* Random records and lengths through every kind of store. */
	tex_setup();
	for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++)
		CU_ASSERT_EQUAL_FATAL(pp_expr_compile(exprs[i], &env, &progs[i], &err), 0);
	for (int round = 0; round < 3000; round++) {
		char str[32];

		for (size_t i = 0; i < TEX_REC_SZ; i++)
			tex_rec[i] = (uint8_t)rand_r(&seed);
		tex_ctx.raw_sz = (uint32_t)rand_r(&seed) % (TEX_REC_SZ + 1);
		memcpy(saved, tex_rec, sizeof(saved));
		for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++) {
			if (pp_expr_is_string(progs[i])) {
				CU_ASSERT_EQUAL(pp_expr_eval_str(progs[i], &tex_ctx, str,
								 sizeof(str)), 0);
			} else {
				pp_expr_eval(progs[i], &tex_ctx);
			}
		}
		if (memcmp(saved, tex_rec, sizeof(saved))) {
			CU_FAIL("a store reached the caller's record");
			break;
		}
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(exprs); i++)
		pp_expr_free(progs[i]);
}

/* The examples of perf-prof's documentation. */
static void test_expr__perf_prof_examples(void)
{
	static const struct pp_field fn_field[] = { { "function", 0, 8, 8, false } };
	struct pp_expr_env env = { fn_field, 1, NULL, 0, 0 };
	uint64_t fn = 0xffffffff81000000ull;
	struct pp_parse_error err;
	struct pp_expr *e;
	char buf[32];

	tex_setup();
	EQ("(((address>>18)&1)?42:0) + ((address>>12)&0x3f)", 47);
	EQ("(next_pid?1:0)|(prev_pid?2:0)", 3);
	EQ("(4096<<order)", 32768);
	PF("printf(\"  %03d      %d\", key>>32, (int)key)", "  007      9");
	FEQ("comm_get(_pid) ~ \"python*\"", 1);

	CU_ASSERT_EQUAL_FATAL(pp_expr_compile("ksymbol(function)", &env, &e, &err), 0);
	tex_ctx.raw = &fn;
	tex_ctx.raw_sz = sizeof(fn);
	CU_ASSERT_EQUAL(pp_expr_eval_str(e, &tex_ctx, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "do_sys_open");
	/* Truncated to the buffer. */
	CU_ASSERT_EQUAL(pp_expr_eval_str(e, &tex_ctx, buf, 4), 0);
	CU_ASSERT_STRING_EQUAL(buf, "do_");
	pp_expr_free(e);
}

void test_expr__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_expr__literals, "numbers, characters, strings, comments"),
		PP_TEST(test_expr__operators, "every operator at its precedence"),
		PP_TEST(test_expr__conversions, "casts, promotions, signed and unsigned, sizeof"),
		PP_TEST(test_expr__fields, "scalar fields, globals and caller variables"),
		PP_TEST(test_expr__strings_arrays, "char arrays, __data_loc, checked indexes"),
		PP_TEST(test_expr__pointers, "&, *, pointer arithmetic, unreadable addresses"),
		PP_TEST(test_expr__globs, "'~' glob matching with classes"),
		PP_TEST(test_expr__short_circuit, "&&, || and ?: evaluate only what they need"),
		PP_TEST(test_expr__builtins, "built-ins with stub callbacks"),
		PP_TEST(test_expr__printf, "printf conversions, bounded and capped"),
		PP_TEST(test_expr__system, "system() only when allowed"),
		PP_TEST(test_expr__perf_prof_examples, "the examples of perf-prof's documentation"),
		PP_TEST(test_expr__assign_perf_prof, "=, ++, -- and ',' as perf-prof's test_expr.py"),
		PP_TEST(test_expr__assign, "assignment: types, precedence, every kind of lvalue"),
		PP_TEST(test_expr__assign_errors, "non-lvalues and +=: errors at the operator"),
		PP_TEST(test_expr__assign_hostile, "stores never leave the evaluation's copy"),
	};
	CU_pSuite s = CU_add_suite("expr", NULL, NULL);
	const struct pp_test *more;
	size_t nr;

	for (size_t i = 0; s && i < PP_ARRAY_SIZE(tests); i++)
		CU_add_test(s, tests[i].desc, tests[i].fn);
	more = test_expr__more(&nr);
	for (size_t i = 0; s && i < nr; i++)
		CU_add_test(s, more[i].desc, more[i].fn);
}
