/* SPDX-License-Identifier: MIT */
/*
 * test-diff.c - pp-analyze diff's parts: the JSON reader, reports read back as tables, key
 * matching (text and identity keys, --match, repeated keys, new and gone), the delta
 * arithmetic and its order, --fail-if (before.NAME, doubles, string keys), and the
 * expression language's doubles (PP_EXPR_DOUBLE) and dotted names it rests on.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/json.h"
#include "common/log.h"
#include "tests/unit/unit.h"

/* --- the JSON reader ------------------------------------------------------------ */

static struct pp_json *parse_ok(const char *s)
{
	struct pp_json *j = NULL;
	char err[128];
	int rc = pp_json_parse(s, strlen(s), NULL, &j, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "'%s': %s\n", s, err);
	return j;
}

static void parse_bad(const char *s, int code, const char *msg)
{
	struct pp_json *j = (struct pp_json *)1;
	char err[128] = "";

	CU_ASSERT_EQUAL(pp_json_parse(s, strlen(s), NULL, &j, err, sizeof(err)), code);
	CU_ASSERT_PTR_NULL(j);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
	if (!strstr(err, msg))
		fprintf(stderr, "'%s': got '%s', want '%s'\n", s, err, msg);
}

static void test_json__values(void)
{
	struct pp_json *j = parse_ok(" {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\ty\\u00e9\\ud83d\\ude00\","
				     " \"o\": {}, \"e\": [] } ");
	const struct pp_json *a;

	if (!j)
		return;
	CU_ASSERT_EQUAL(j->type, PP_JSON_OBJ);
	CU_ASSERT_EQUAL(j->nr, 4);
	a = pp_json_get(j, "a");
	CU_ASSERT_EQUAL(a->type, PP_JSON_ARR);
	CU_ASSERT_EQUAL(a->nr, 5);
	CU_ASSERT_EQUAL(a->v[0]->num, 1);
	CU_ASSERT_STRING_EQUAL(a->v[1]->str, "-2.5e3");
	CU_ASSERT_EQUAL(a->v[1]->num, -2500);
	CU_ASSERT(a->v[2]->type == PP_JSON_BOOL && a->v[2]->b);
	CU_ASSERT(a->v[3]->type == PP_JSON_BOOL && !a->v[3]->b);
	CU_ASSERT_EQUAL(a->v[4]->type, PP_JSON_NULL);
	CU_ASSERT_STRING_EQUAL(pp_json_get(j, "s")->str, "x\ty\xc3\xa9\xf0\x9f\x98\x80");
	CU_ASSERT_EQUAL(pp_json_get(j, "o")->nr, 0);
	CU_ASSERT_PTR_NULL(pp_json_get(j, "nope"));
	pp_json_free(j);
	pp_json_free(NULL);
}

static void test_json__errors(void)
{
	char deep[PP_JSON_MAX_DEPTH + 10];

	parse_bad("", PP_ESYNTAX, "expected a value");
	parse_bad("[1,]", PP_ESYNTAX, "unexpected");
	parse_bad("{\"a\" 1}", PP_ESYNTAX, "expected ':'");
	parse_bad("{\"a\":1,}", PP_ESYNTAX, "expected a member name");
	parse_bad("[1 2]", PP_ESYNTAX, "expected ',' or ']'");
	parse_bad("01", PP_ESYNTAX, "text after the value");
	parse_bad("1.", PP_ESYNTAX, "digits after '.'");
	parse_bad("-", PP_ESYNTAX, "bad number");
	parse_bad("1e", PP_ESYNTAX, "exponent");
	parse_bad("NaN", PP_ESYNTAX, "unexpected");
	parse_bad("\"a", PP_ESYNTAX, "unterminated string");
	parse_bad("\"a\tb\"", PP_ESYNTAX, "control character");
	parse_bad("\"\\x\"", PP_ESYNTAX, "bad escape");
	parse_bad("\"\\u12\"", PP_ESYNTAX, "four hex digits");
	parse_bad("\"\\u0000\"", PP_ESYNTAX, "\\u0000");
	parse_bad("\"\\ud800x\"", PP_ESYNTAX, "surrogate");
	parse_bad("\"\\udc00\"", PP_ESYNTAX, "lone low surrogate");
	parse_bad("{} {}", PP_ESYNTAX, "offset 3: text after the value");
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	parse_bad(deep, PP_ERANGE, "nested deeper");
}

static void test_json__stream(void)
{
	const char *s = "{\"a\":1}\n[2]\n";
	struct pp_json *j;
	size_t end;
	char err[64];

	CU_ASSERT_EQUAL(pp_json_parse(s, strlen(s), &end, &j, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(end, 8);
	pp_json_free(j);
	CU_ASSERT_EQUAL(pp_json_parse(s + end, strlen(s + end), &end, &j, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(j->type, PP_JSON_ARR);
	CU_ASSERT_EQUAL(end, 4);
	pp_json_free(j);
}

/* --- reports as tables ------------------------------------------------------------ */

static void report(struct ana_dreport *r, const char *text, const char *root)
{
	char err[128];
	int rc = ana_dreport_parse(r, text, strlen(text), root, err, sizeof(err));

	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static const struct ana_dcell *cell(const struct ana_dtable *t, size_t row, const char *col)
{
	for (size_t c = 0; c < t->nr_cols; c++)
		if (!strcmp(t->cols[c], col))
			return &t->cells[row * t->nr_cols + c];
	return NULL;
}

static void test_diff__tables(void)
{
	struct ana_dreport r;
	const struct ana_dtable *t;

	/* a bare array, an object of tables, top's wrapper (numbers and rows), the last wins */
	report(&r, "[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"c\":3.5}]\n"
		   "{\"symbols\":[{\"s\":\"f\",\"n\":1}],\"processes\":[]}\n"
		   "{\"time\":\"t1\",\"events\":10,\"rows\":[{\"key\":1,\"E\":5}]}\n"
		   "{\"time\":\"t2\",\"events\":20,\"rows\":[{\"key\":2,\"E\":7},{\"key\":3,\"E\":1}],"
		   " \"nested\":{\"deep\":[{\"q\":1,\"arr\":[1,2]}]}}", "top");
	CU_ASSERT_EQUAL(r.nr, 5);
	t = ana_dreport_find(&r, "top");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->nr_rows, 1);	/* replaced by the second top document */
	CU_ASSERT_EQUAL(cell(t, 0, "events")->num, 20);
	/* the bare array was named "top" first, then replaced too: 2 rows -> 1 */
	t = ana_dreport_find(&r, "rows");
	CU_ASSERT_EQUAL(t->nr_rows, 2);
	CU_ASSERT_EQUAL(cell(t, 1, "key")->num, 3);
	CU_ASSERT(cell(t, 1, "E")->is_num);
	t = ana_dreport_find(&r, "processes");
	CU_ASSERT(t && t->nr_rows == 0);
	t = ana_dreport_find(&r, "nested.deep");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->nr_cols, 1);	/* an array inside a row is not a cell */
	ana_dreport_release(&r);

	/* rows with different members: a union of columns, absent cells NULL */
	report(&r, "[{\"a\":1,\"b\":\"x\"},{\"a\":2,\"c\":3.5}]", "x");
	t = ana_dreport_find(&r, "x");
	CU_ASSERT_EQUAL(t->nr_cols, 3);
	CU_ASSERT_PTR_NULL(cell(t, 0, "c")->text);
	CU_ASSERT_PTR_NULL(cell(t, 1, "b")->text);
	CU_ASSERT_EQUAL(cell(t, 1, "c")->num, 3.5);
	CU_ASSERT_STRING_EQUAL(cell(t, 1, "c")->text, "3.5");
	ana_dreport_release(&r);

	char err[128];

	CU_ASSERT_EQUAL(ana_dreport_parse(&r, "[{}] [", 6, "x", err, sizeof(err)), PP_ESYNTAX);
	CU_ASSERT_EQUAL(r.nr, 0);
}

/* --- matching and deltas ----------------------------------------------------------- */

static struct ana_dreport before, after;
static struct ana_diff d;

static void compare(const char *b, const char *a, const struct ana_diff_opts *o)
{
	static const struct ana_diff_opts none;
	char err[128];

	report(&before, b, "t");
	report(&after, a, "t");
	CU_ASSERT_EQUAL_FATAL(ana_diff_compute(&d, &before, &after, o ? o : &none, err, sizeof(err)),
			      0);
}

static void done(void)
{
	ana_diff_release(&d);
	ana_dreport_release(&before);
	ana_dreport_release(&after);
}

static const struct ana_drow *row(const struct ana_dtdiff *t, const char *key)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	return NULL;
}

static const struct ana_dcol *col(const struct ana_dtdiff *t, const char *name)
{
	for (size_t i = 0; i < t->nr_cols; i++)
		if (!strcmp(t->cols[i].name, name))
			return &t->cols[i];
	return NULL;
}

static double delta(const struct ana_dtdiff *t, const char *key, const char *name)
{
	const struct ana_drow *r = row(t, key);
	double b, a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	ana_dvalue(t, r, col(t, name), 0, &b);
	ana_dvalue(t, r, col(t, name), 1, &a);
	return a - b;
}

static void test_diff__keys(void)
{
	const struct ana_dtdiff *t;

	/* text and identity columns are the key, "time" neither, the rest values */
	compare("[{\"time\":\"x\",\"syscall\":\"read\",\"id\":0,\"calls\":10,\"p99_us\":1.5},"
		"{\"time\":\"x\",\"syscall\":\"write\",\"id\":1,\"calls\":4,\"p99_us\":2}]",
		"[{\"time\":\"y\",\"syscall\":\"write\",\"id\":1,\"calls\":4,\"p99_us\":2},"
		"{\"time\":\"y\",\"syscall\":\"read\",\"id\":0,\"calls\":12,\"p99_us\":1.25}]", NULL);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	t = &d.t[0];
	CU_ASSERT(col(t, "syscall")->is_key && col(t, "id")->is_key);
	CU_ASSERT(!col(t, "time")->is_key && !col(t, "time")->is_value);
	CU_ASSERT(col(t, "calls")->is_value && col(t, "p99_us")->is_value);
	CU_ASSERT_EQUAL(col(t, "p99_us")->decimals, 2);
	CU_ASSERT_EQUAL(t->nr_rows, 2);
	CU_ASSERT_EQUAL(t->nr[ANA_DROW_CHANGED], 1);
	CU_ASSERT_EQUAL(t->nr[ANA_DROW_SAME], 1);
	/* matched across different row orders */
	CU_ASSERT_PTR_NOT_NULL(row(t, "syscall=read id=0"));
	CU_ASSERT_EQUAL(row(t, "syscall=write id=1")->status, ANA_DROW_SAME);
	CU_ASSERT_EQUAL(delta(t, "syscall=read id=0", "calls"), 2);
	CU_ASSERT_DOUBLE_EQUAL(delta(t, "syscall=read id=0", "p99_us"), -0.25, 1e-12);
	/* the change is the largest relative one: calls +20 %, p99 -16.7 % */
	CU_ASSERT_DOUBLE_EQUAL(row(t, "syscall=read id=0")->change, 0.2, 1e-12);
	CU_ASSERT_STRING_EQUAL(t->rows[0].key, "syscall=read id=0");	/* the change first */
	done();

	/* --match: pid left out of the key is not a value either; the comm matches */
	struct ana_diff_opts o = { .keys = "comm" };

	compare("[{\"pid\":10,\"comm\":\"a\",\"n\":1}]", "[{\"pid\":20,\"comm\":\"a\",\"n\":3}]", &o);
	t = &d.t[0];
	CU_ASSERT(!col(t, "pid")->is_key && !col(t, "pid")->is_value);
	CU_ASSERT_EQUAL(t->nr_rows, 1);
	CU_ASSERT_EQUAL(delta(t, "comm=a", "n"), 2);
	done();
	/* without it, the pids are two keys: one gone, one new */
	compare("[{\"pid\":10,\"comm\":\"a\",\"n\":1}]", "[{\"pid\":20,\"comm\":\"a\",\"n\":3}]", NULL);
	t = &d.t[0];
	CU_ASSERT_EQUAL(t->nr[ANA_DROW_NEW], 1);
	CU_ASSERT_EQUAL(t->nr[ANA_DROW_GONE], 1);
	CU_ASSERT_EQUAL(row(t, "pid=20 comm=a")->status, ANA_DROW_NEW);
	CU_ASSERT(isinf(row(t, "pid=10 comm=a")->change));
	/* a gone key's missing values count as 0 */
	CU_ASSERT_EQUAL(delta(t, "pid=10 comm=a", "n"), -1);
	done();
}

static void test_diff__repeated_keys(void)
{
	const struct ana_dtdiff *t;
	struct ana_diff_opts o = { .keys = "comm" };

	/* two rows of one comm on each side pair in their order; a third is new */
	compare("[{\"tid\":1,\"comm\":\"w\",\"n\":1},{\"tid\":2,\"comm\":\"w\",\"n\":2}]",
		"[{\"tid\":7,\"comm\":\"w\",\"n\":10},{\"tid\":8,\"comm\":\"w\",\"n\":20},"
		"{\"tid\":9,\"comm\":\"w\",\"n\":30}]", &o);
	t = &d.t[0];
	CU_ASSERT_EQUAL(t->nr_rows, 3);
	CU_ASSERT_EQUAL(delta(t, "comm=w", "n"), 9);
	CU_ASSERT_EQUAL(delta(t, "comm=w #2", "n"), 18);
	CU_ASSERT_EQUAL(row(t, "comm=w #3")->status, ANA_DROW_NEW);
	done();
	/* a table without key columns: its one row each side is one key */
	compare("{\"events\":5}", "{\"events\":8}", NULL);
	t = &d.t[0];
	CU_ASSERT_EQUAL(t->nr_rows, 1);
	CU_ASSERT_EQUAL(delta(t, "", "events"), 3);
	done();
}

static void test_diff__order(void)
{
	const struct ana_dtdiff *t;
	struct ana_diff_opts o = { .sort = "n" };

	/* by the relative change: 0 -> 1 (inf), 100 -> 150 (50 %), 10 -> 12 (20 %), same */
	compare("[{\"k\":\"a\",\"n\":10},{\"k\":\"b\",\"n\":100},{\"k\":\"c\",\"n\":0},{\"k\":\"d\",\"n\":5}]",
		"[{\"k\":\"a\",\"n\":12},{\"k\":\"b\",\"n\":150},{\"k\":\"c\",\"n\":1},{\"k\":\"d\",\"n\":5}]",
		NULL);
	t = &d.t[0];
	CU_ASSERT_STRING_EQUAL(t->rows[0].key, "k=c");
	CU_ASSERT_STRING_EQUAL(t->rows[1].key, "k=b");
	CU_ASSERT_STRING_EQUAL(t->rows[2].key, "k=a");
	CU_ASSERT_STRING_EQUAL(t->rows[3].key, "k=d");
	CU_ASSERT_EQUAL(t->rows[3].status, ANA_DROW_SAME);
	CU_ASSERT_EQUAL(t->rows[3].change, 0);
	done();
	/* --sort-by n: by |delta n| */
	compare("[{\"k\":\"a\",\"n\":10},{\"k\":\"b\",\"n\":100},{\"k\":\"c\",\"n\":0}]",
		"[{\"k\":\"a\",\"n\":12},{\"k\":\"b\",\"n\":50},{\"k\":\"c\",\"n\":1}]", &o);
	t = &d.t[0];
	CU_ASSERT_STRING_EQUAL(t->rows[0].key, "k=b");
	CU_ASSERT_STRING_EQUAL(t->rows[1].key, "k=a");
	CU_ASSERT_STRING_EQUAL(t->rows[2].key, "k=c");
	done();

	/* a column no table has */
	char err[128];
	struct ana_diff_opts bad = { .columns = "n,zz" };

	report(&before, "[{\"k\":\"a\",\"n\":1}]", "t");
	report(&after, "[{\"k\":\"a\",\"n\":1}]", "t");
	CU_ASSERT_EQUAL(ana_diff_compute(&d, &before, &after, &bad, err, sizeof(err)), PP_EUSAGE);
	CU_ASSERT_STRING_EQUAL(err, "--columns: no table of either report has a column 'zz'");
	done();
}

/* --- --fail-if ------------------------------------------------------------------------ */

static size_t gate(const char *expr)
{
	CU_ASSERT_EQUAL(ana_diff_gate(&d, expr), 0);
	return d.nr_tripped;
}

static void test_diff__gate(void)
{
	const struct ana_dtdiff *t;

	compare("[{\"syscall\":\"read\",\"id\":0,\"calls\":100,\"p99_us\":10.0},"
		"{\"syscall\":\"write\",\"id\":1,\"calls\":100,\"p99_us\":10.0},"
		"{\"syscall\":\"open\",\"id\":2,\"calls\":5,\"p99_us\":1}]",
		"[{\"syscall\":\"read\",\"id\":0,\"calls\":100,\"p99_us\":11.5},"
		"{\"syscall\":\"write\",\"id\":1,\"calls\":80,\"p99_us\":10.5},"
		"{\"syscall\":\"close\",\"id\":3,\"calls\":5,\"p99_us\":1}]", NULL);
	t = &d.t[0];
	CU_ASSERT_EQUAL(gate("p99_us > 1.10 * before.p99_us"), 2);	/* read, and close: new */
	CU_ASSERT(row(t, "syscall=read id=0")->tripped);
	CU_ASSERT(row(t, "syscall=close id=3")->tripped);
	CU_ASSERT(t->rows[0].tripped && t->rows[1].tripped);	/* sorted first */
	CU_ASSERT_EQUAL(gate("!new && p99_us > 1.10 * before.p99_us"), 1);
	CU_ASSERT_EQUAL(gate("p99_us > 1.16 * before.p99_us && !new"), 0);
	CU_ASSERT_EQUAL(gate("calls < 0.9 * before.calls"), 2);	/* write, and open: gone */
	CU_ASSERT_EQUAL(gate("gone"), 1);
	CU_ASSERT(row(t, "syscall=open id=2")->tripped);
	CU_ASSERT_EQUAL(gate("delta.calls == -20"), 1);
	CU_ASSERT_EQUAL(gate("after.p99_us - before.p99_us >= 1.5"), 1);
	CU_ASSERT_EQUAL(gate("syscall == \"write\" && id == 1"), 1);
	CU_ASSERT_EQUAL(gate("syscall ~ \"*e\" && calls"), 2);	/* write, close */
	CU_ASSERT_EQUAL(gate("p99_us / before.p99_us > 1.14"), 2);	/* x/0 is inf for close */
	/* errors: the code, after a caret on stderr */
	CU_ASSERT_EQUAL(ana_diff_gate(&d, "p99_us > before.p99"), PP_EUNKNOWN_FIELD);
	CU_ASSERT_EQUAL(ana_diff_gate(&d, "p99_us >"), PP_ESYNTAX);
	CU_ASSERT_EQUAL(ana_diff_gate(&d, "calls % 2"), PP_ETYPE);
	done();

	/* a name one table lacks skips that table */
	compare("{\"a\":[{\"k\":\"x\",\"n\":1}],\"b\":[{\"k\":\"x\",\"m\":1}]}",
		"{\"a\":[{\"k\":\"x\",\"n\":5}],\"b\":[{\"k\":\"x\",\"m\":5}]}", NULL);
	CU_ASSERT_EQUAL(gate("n > before.n"), 1);
	CU_ASSERT(d.t[0].gated && !d.t[1].gated);
	done();
}

/* --- the expression language's doubles ---------------------------------------------- */

static double eval_d(const char *text, const double *vals, size_t nr)
{
	static const char *const names[] = { "x", "before.x", "y" };
	uint64_t bits[3] = { 0 };
	struct pp_expr_env env = { .vars = names, .nr_vars = 3,
				   .flags = PP_EXPR_DOUBLE | PP_EXPR_DOTTED_NAMES };
	struct pp_parse_error err;
	struct pp_expr_ctx ctx = { .vars = bits };
	struct pp_expr *e;
	double r;

	if (nr)	/* memcpy(_, NULL, 0) is undefined */
		memcpy(bits, vals, nr * sizeof(*vals));
	if (pp_expr_compile(text, &env, &e, &err)) {
		CU_FAIL("compile");
		fprintf(stderr, "'%s': %s at %d\n", text, err.msg, err.pos);
		return NAN;
	}
	r = pp_expr_eval_num(e, &ctx);
	pp_expr_free(e);
	return r;
}

static int bad_d(const char *text, int pos)
{
	static const char *const names[] = { "x" };
	struct pp_expr_env env = { .vars = names, .nr_vars = 1, .flags = PP_EXPR_DOUBLE };
	struct pp_parse_error err = { .pos = -1 };
	struct pp_expr *e = NULL;
	int rc = pp_expr_compile(text, &env, &e, &err);

	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_EQUAL(err.pos, pos);
	if (err.pos != pos)
		fprintf(stderr, "'%s': %s at %d, want %d\n", text, err.msg, err.pos, pos);
	pp_expr_free(e);
	return rc;
}

static void test_expr__double(void)
{
	double v[3] = { 11.5, 10.0, -0.0 };

	CU_ASSERT_EQUAL(eval_d("1.10 * 10", NULL, 0), 1.10 * 10);	/* folded */
	CU_ASSERT_EQUAL(eval_d("x > 1.10 * before.x", v, 3), 1);
	CU_ASSERT_EQUAL(eval_d("x > 1.16 * before.x", v, 3), 0);
	CU_ASSERT_EQUAL(eval_d("x - before.x", v, 3), 1.5);
	CU_ASSERT_EQUAL(eval_d("-x / 2", v, 3), -5.75);
	CU_ASSERT_EQUAL(eval_d("x / 0", v, 3), INFINITY);
	CU_ASSERT_EQUAL(eval_d("2e3 + 1 / 2", NULL, 0), 2000);	/* 1 / 2 stays an int */
	CU_ASSERT_EQUAL(eval_d("1 / 2.0", NULL, 0), 0.5);
	CU_ASSERT_EQUAL(eval_d("(int)x", v, 3), 11);
	CU_ASSERT_EQUAL(eval_d("(int)-x", v, 3), -11);
	CU_ASSERT_EQUAL(eval_d("(unsigned char)300.7", NULL, 0), 44);
	CU_ASSERT_EQUAL(eval_d("(long)1e30", NULL, 0), (double)INT64_MAX);	/* clamped */
	CU_ASSERT_EQUAL(eval_d("(unsigned long)-5.0", NULL, 0), 0);
	CU_ASSERT_EQUAL(eval_d("(int)(x / 0 - x / 0)", v, 3), 0);		/* NaN */
	/* -0.0 is false everywhere a truth is taken */
	CU_ASSERT_EQUAL(eval_d("!y", v, 3), 1);
	CU_ASSERT_EQUAL(eval_d("y || 0", v, 3), 0);
	CU_ASSERT_EQUAL(eval_d("y && 1", v, 3), 0);
	CU_ASSERT_EQUAL(eval_d("y ? 1 : 2", v, 3), 2);
	CU_ASSERT_EQUAL(eval_d("x ? 1 : 2.5", v, 3), 1);
	CU_ASSERT_EQUAL(eval_d("0.5 && x", v, 3), 1);
	CU_ASSERT_EQUAL(eval_d("x == 11.5 && before.x != 10.5 && x >= 11.5 && x <= 11.5", v, 3), 1);
	CU_ASSERT_EQUAL(eval_d("3 > 2.5", NULL, 0), 1);
	CU_ASSERT_EQUAL(eval_d("-1 < 0.5", NULL, 0), 1);
	CU_ASSERT_EQUAL(eval_d("4294967295u > 1.0", NULL, 0), 1);	/* unsigned converted as such */
	/* what needs integers refuses doubles, the caret on the operator or operand */
	CU_ASSERT_EQUAL(bad_d("x % 2", 2), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("x << 1", 2), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("1 | 2.0", 2), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("~x", 0), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("\"ab\"[1.0]", 5), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("\"ab\" + 1.5", 5), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("(char *)x", 0), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("printf(\"%d\", x)", 13), PP_ETYPE);
	CU_ASSERT_EQUAL(bad_d("1.5.2", 0), PP_ESYNTAX);
	CU_ASSERT_EQUAL(bad_d("1e999", 0), PP_ERANGE);
	CU_ASSERT_EQUAL(bad_d("before.x", 0), PP_EUNKNOWN_FIELD);	/* no dotted names */

	/* without PP_EXPR_DOUBLE nothing changes: 1.5 is not a number, vars are integers */
	struct pp_expr_env env = { 0 };
	struct pp_parse_error err;
	struct pp_expr *e = NULL;

	CU_ASSERT_EQUAL(pp_expr_compile("1.5", &env, &e, &err), PP_ENOTSUP);	/* "." */
	CU_ASSERT_PTR_NULL(e);
}

void test_diff__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_json__values, "json: every kind of value, escapes, surrogate pairs"),
		PP_TEST(test_json__errors, "json: each grammar error named with its offset, depth"),
		PP_TEST(test_json__stream, "json: values one after another"),
		PP_TEST(test_diff__tables, "reports: tables found and named, the last printing wins"),
		PP_TEST(test_diff__keys, "keys: text and identity columns, --match, new and gone"),
		PP_TEST(test_diff__repeated_keys, "keys: repeated keys pair in order; no key column"),
		PP_TEST(test_diff__order, "deltas: largest relative change first, --sort-by, errors"),
		PP_TEST(test_diff__gate, "--fail-if: before.NAME, doubles, strings, new/gone, errors"),
		PP_TEST(test_expr__double, "expressions: PP_EXPR_DOUBLE constants, conversions, refusals"),
	};

	pp_suite_add("diff", tests, PP_ARRAY_SIZE(tests));
}
