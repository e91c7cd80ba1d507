/* SPDX-License-Identifier: MIT */
/*
 * test-quote.c - capture text made safe for a terminal (common/quote.c): the field
 * and text rules, widths, and the stream net with writes cut anywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/quote.h"
#include "tests/unit/unit.h"

static const char *field(struct pp_buf *b, const char *s, size_t n, enum pp_quote_rule r)
{
	pp_buf_reset(b);
	pp_buf_add_quoted(b, s, n, r);
	return pp_buf_str(b);
}

static void test_quote__field(void)
{
	struct pp_buf b = PP_BUF_INIT;
	const char osc[] = "ab\x1b]0;pwn\x07\xff\xc3\xa9\t";

	CU_ASSERT_STRING_EQUAL(field(&b, osc, strlen(osc), PP_QUOTE_FIELD),
			       "ab\\x1b]0;pwn\\x07\\xff\xc3\xa9\\t");
	/* printable ASCII, backslash included, and valid UTF-8 pass as they are */
	CU_ASSERT_STRING_EQUAL(field(&b, "C:\\x y~", 7, PP_QUOTE_FIELD), "C:\\x y~");
	CU_ASSERT_STRING_EQUAL(field(&b, "\xe2\x82\xac\xf0\x9f\x98\x80", 7, PP_QUOTE_FIELD),
			       "\xe2\x82\xac\xf0\x9f\x98\x80");
	/* DEL, CR, NL, a raw C1 byte, a C1 control in UTF-8, a cut sequence, an overlong one */
	CU_ASSERT_STRING_EQUAL(field(&b, "\x7f\r\n\x9b", 4, PP_QUOTE_FIELD), "\\x7f\\r\\n\\x9b");
	CU_ASSERT_STRING_EQUAL(field(&b, "a\xc2\x9b" "b", 4, PP_QUOTE_FIELD), "a\\xc2\\x9bb");
	CU_ASSERT_STRING_EQUAL(field(&b, "\xe2\x82", 2, PP_QUOTE_FIELD), "\\xe2\\x82");
	CU_ASSERT_STRING_EQUAL(field(&b, "\xc0\xaf", 2, PP_QUOTE_FIELD), "\\xc0\\xaf");
	/* a NUL inside a counted string */
	CU_ASSERT_STRING_EQUAL(field(&b, "a\0b", 3, PP_QUOTE_FIELD), "a\\x00b");
	/* the text rule keeps tab and newline, nothing else */
	CU_ASSERT_STRING_EQUAL(field(&b, "a\tb\nc\rd\x1b", 8, PP_QUOTE_TEXT), "a\tb\nc\\rd\\x1b");
	/* longer than a word of the fast scan, unsafe byte in each position */
	for (size_t i = 0; i < 20; i++) {
		char s[21];
		memset(s, 'x', 20);
		s[20] = '\0';
		s[i] = '\x1b';
		CU_ASSERT_EQUAL(pp_quote_safe_len(s, 20, PP_QUOTE_FIELD), i);
		CU_ASSERT_EQUAL(strlen(field(&b, s, 20, PP_QUOTE_FIELD)), 23);
	}
	CU_ASSERT_EQUAL(pp_quote_safe_len("plain text, long enough", 23, PP_QUOTE_FIELD), 23);
	pp_buf_release(&b);
}

static void test_quote__str_width(void)
{
	struct pp_buf b = PP_BUF_INIT;
	const char *s = "safe";

	CU_ASSERT_PTR_EQUAL(pp_quote_str(&b, s), s);	/* nothing to do: no copy */
	CU_ASSERT_FALSE(pp_quote_needed(s));
	CU_ASSERT_TRUE(pp_quote_needed("a\x1b"));
	CU_ASSERT_STRING_EQUAL(pp_quote_str(&b, "\x1b[2J"), "\\x1b[2J");
	CU_ASSERT_EQUAL(pp_quote_width("\x1b[2J"), 7);
	CU_ASSERT_EQUAL(pp_quote_width("caf\xc3\xa9\n"), 7);
	pp_buf_release(&b);
}

/* Everything written through the net, in pieces of @step bytes, as @under holds it. */
static char *through_net(const char *s, size_t n, size_t step)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	FILE *net = pp_quote_fopen(mem);

	CU_ASSERT_PTR_NOT_NULL_FATAL(net);
	for (size_t i = 0; i < n; i += step)
		fwrite(s + i, 1, n - i < step ? n - i : step, net);
	fclose(net);
	fclose(mem);
	return text;
}

static void test_quote__stream(void)
{
	const char in[] = "t\xc3\xa9st \xe2\x82\xac\t\xf0\x9f\x98\x80 \x1b]0;x\x07 \xff\xc2\x9b end\n";
	const char want[] = "t\xc3\xa9st \xe2\x82\xac\t\xf0\x9f\x98\x80 \\x1b]0;x\\x07 \\xff\\xc2\\x9b end\n";

	/* one write, then cut at every size: a UTF-8 sequence split between writes is whole */
	for (size_t step = 1; step <= sizeof(in); step++) {
		char *out = through_net(in, sizeof(in) - 1, step);
		CU_ASSERT_STRING_EQUAL(out, want);
		free(out);
	}
	/* a sequence cut by the end of everything is shown escaped at fclose */
	char *out = through_net("ok\xe2\x82", 4, 1);
	CU_ASSERT_STRING_EQUAL(out, "ok\\xe2\\x82");
	free(out);
	/* fprintf through the net reaches the stream at once (unbuffered: order kept) */
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	FILE *net = pp_quote_fopen(mem);
	fprintf(net, "%s=%d;", "\x1b" "a", 1);
	fputs("direct;", mem);
	fprintf(net, "b");
	fclose(net);
	fclose(mem);
	CU_ASSERT_STRING_EQUAL(text, "\\x1ba=1;direct;b");
	free(text);
}

void test_quote__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_quote__field, "control bytes, DEL, C1 and bytes that are not UTF-8 are "
					   "escaped, UTF-8 and ASCII pass, at every position"),
		PP_TEST(test_quote__str_width, "a safe string is returned as is; widths count escapes"),
		PP_TEST(test_quote__stream, "the net escapes what is written through it, whole UTF-8 "
					    "across cut writes, in order with the stream under it"),
	};

	pp_suite_add("quote", tests, PP_ARRAY_SIZE(tests));
}
