/* SPDX-License-Identifier: MIT */
/*
 * schedstate.c - what sched_switch's prev_state means in a capture, read from the
 * capture's stored format rather than assumed from this kernel.
 *
 * The bits changed between kernels: 4.14 packed the reported states into
 * TASK_REPORT (S D T t X Z P, then I) and marks a preempted task with
 * TASK_REPORT_MAX (0x100); earlier kernels report the raw task state (Z 16 before X
 * 32, "x" TASK_DEAD 64, K W P N above) and mark preemption with TASK_STATE_MAX (1024,
 * 2048 or 4096 as states were added).  The print fmt says it all: __print_flags()
 * lists each bit's letter, and `REC->prev_state & MAX ? "+" : ""` gives the
 * preemption mark, as an expression of numbers that is evaluated here (the way perf
 * and libtraceevent print "R+").  States are mapped to the 4.14 encoding
 * (ANA_PS_*), so analyzers and their merged states compare one encoding.  Without
 * a usable print fmt the capture's "release" decides, as before.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

/* The 4.14 letters in bit order: the canonical encoding. */
static const char canon_letters[] = "SDTtXZPI";

/* --- a small evaluator of the print fmt's integer expressions ---------------- */

struct ps_lex {
	const char *p, *end;
	bool bad;
};

static void ps_skip(struct ps_lex *l)
{
	while (l->p < l->end && isspace((unsigned char)*l->p))
		l->p++;
}

static bool ps_eat(struct ps_lex *l, const char *tok)
{
	size_t n = strlen(tok);

	ps_skip(l);
	if ((size_t)(l->end - l->p) >= n && !memcmp(l->p, tok, n)) {
		l->p += n;
		return true;
	}
	return false;
}

static uint64_t ps_or(struct ps_lex *l, int depth);

static uint64_t ps_unary(struct ps_lex *l, int depth)
{
	char num[32], *e;
	size_t n = 0;
	uint64_t v;

	if (depth > 32) {	/* a capture's text: no recursion without end */
		l->bad = true;
		return 0;
	}
	if (ps_eat(l, "~"))
		return ~ps_unary(l, depth + 1);
	if (ps_eat(l, "(")) {
		v = ps_or(l, depth + 1);
		if (!ps_eat(l, ")"))
			l->bad = true;
		return v;
	}
	ps_skip(l);
	while (l->p + n < l->end && n + 1 < sizeof(num) && isalnum((unsigned char)l->p[n]))
		n++;
	memcpy(num, l->p, n);
	num[n] = '\0';
	v = strtoull(num, &e, 0);
	if (!n || *e) {
		l->bad = true;
		return 0;
	}
	l->p += n;
	return v;
}

static uint64_t ps_add(struct ps_lex *l, int depth)
{
	uint64_t v = ps_unary(l, depth);

	for (;;) {
		if (ps_eat(l, "+"))
			v += ps_unary(l, depth);
		else if (ps_eat(l, "-"))
			v -= ps_unary(l, depth);
		else
			return v;
	}
}

static uint64_t ps_shift(struct ps_lex *l, int depth)
{
	uint64_t v = ps_add(l, depth), by;

	for (;;) {
		bool left = ps_eat(l, "<<");

		if (!left && !ps_eat(l, ">>"))
			return v;
		by = ps_add(l, depth);
		if (by >= 64)
			l->bad = true;
		else
			v = left ? v << by : v >> by;
	}
}

static uint64_t ps_and(struct ps_lex *l, int depth)
{
	uint64_t v = ps_shift(l, depth);

	while (ps_eat(l, "&"))
		v &= ps_shift(l, depth);
	return v;
}

static uint64_t ps_or(struct ps_lex *l, int depth)
{
	uint64_t v = ps_and(l, depth);

	while (ps_eat(l, "|"))
		v |= ps_and(l, depth);
	return v;
}

/* The value of the whole text [p, end), or false when it is no such expression. */
static bool ps_eval(const char *p, const char *end, uint64_t *v)
{
	struct ps_lex l = { p, end, false };

	*v = ps_or(&l, 0);
	ps_skip(&l);
	return !l.bad && l.p == l.end;
}

/* --- the print fmt ------------------------------------------------------------ */

/* The __print_flags() table of the print fmt: each { VALUE, "LETTER" } mapped. */
static bool parse_flags(const char *pf, struct ana_prev_state *ps)
{
	const char *p = strstr(pf, "__print_flags(");
	bool any = false;

	if (!p)
		return false;
	p = strstr(p, "\"|\"");
	if (!p)
		return false;
	for (p += 3; (p = strchr(p, '{'));) {
		char *e;
		uint64_t v = strtoull(p + 1, &e, 0);
		const char *q = strchr(e, '"'), *c;

		if (e == p + 1 || !q || q[1] == '"' || q[2] != '"')
			break;	/* a one-letter name */
		c = strchr(canon_letters, q[1]);
		if (q[1] == 'x')	/* TASK_DEAD before 4.14: dead as X */
			c = strchr(canon_letters, 'X');
		if (c && *c)
			ps->bits[c - canon_letters] |= v;
		any = true;
		p = q + 3;
		const char *brace = strchr(p, '{'), *paren = strchr(p, ')');

		if (!brace || (paren && paren < brace))
			break;	/* the table's end */
	}
	return any;
}

/* MAX of `REC->prev_state & MAX ? "+"`: the preemption mark. */
static bool parse_preempt(const char *pf, uint64_t *v)
{
	const char *q = strstr(pf, "? \"+\""), *amp = NULL;

	if (!q)
		return false;
	for (const char *r = pf; (r = strstr(r, "REC->prev_state")) && r < q; r++)
		amp = r;
	if (!amp)
		return false;
	amp += strlen("REC->prev_state");
	while (amp < q && isspace((unsigned char)*amp))
		amp++;
	if (*amp != '&')
		return false;
	return ps_eval(amp + 1, q, v) && *v;
}

static void by_release(struct ana_session *s, struct ana_prev_state *ps)
{
	const char *rel = ana_host(s, "release");
	int major = 0, minor = 0;
	bool new = !rel || sscanf(rel, "%d.%d", &major, &minor) != 2 || major > 4 ||
		   (major == 4 && minor >= 14);

	memset(ps, 0, sizeof(*ps));
	for (size_t i = 0; i < PP_ARRAY_SIZE(ps->bits); i++)
		ps->bits[i] = 1ull << i;
	if (!new) {	/* Z and X the other way round, x (TASK_DEAD) dead too */
		ps->bits[4] = 0x20 | 0x40;
		ps->bits[5] = 0x10;
		ps->bits[6] = 0;
		ps->bits[7] = 0;
	}
	ps->preempt = new ? 0x100 : 1024;
}

void ana_prev_state_init(struct ana_session *s, const struct ana_evtype *t,
			 struct ana_prev_state *ps)
{
	const char *text = t ? ana_evtype_format(t) : NULL;
	const char *pf = text ? strstr(text, "\nprint fmt:") : NULL;
	struct ana_prev_state f = { 0 };

	if (pf && parse_flags(pf, &f) && parse_preempt(pf, &f.preempt)) {
		f.from_format = true;
		*ps = f;
		return;
	}
	by_release(s, ps);
}

uint64_t ana_prev_state_canon(const struct ana_prev_state *ps, uint64_t raw)
{
	uint64_t v = 0;

	if (raw == ps->preempt)
		return ANA_PS_PREEMPT;
	for (size_t i = 0; i < PP_ARRAY_SIZE(ps->bits); i++)
		if (raw & ps->bits[i])
			v |= 1ull << i;
	return v;
}

bool ana_prev_state_runnable(const struct ana_prev_state *ps, uint64_t raw)
{
	return raw == 0 || raw == ps->preempt;
}
