/* SPDX-License-Identifier: MIT */
/*
 * fastfmt.c - a compiled form of a tracepoint's print_fmt, for fast trace output.
 *
 * libtraceevent renders an event by re-walking its print argument tree,
 * calling vsnprintf for every conversion and allocating a trace_seq per
 * call; that is most of the time `trace` spends.  Here the print_fmt of an
 * event type is compiled once into literal pieces and conversions whose
 * arguments are small trees with the fields already resolved, and printed
 * with hand-written integer and string formatting straight into a pp_buf.
 *
 * The output must equal libtraceevent's (pretty_print): the same argument
 * semantics (unsigned 64-bit arithmetic, the ls casts of %hhd/%hd/%d/%ld,
 * __print_flags and __print_symbolic matching, char arrays cut at their
 * size).  Whatever is not understood here makes the compile fail and the
 * type uses libtraceevent: casts, %p's network/uuid/hex extensions, %c, precision,
 * '*' widths, helper functions, hex/array/bitmask printers, bprint events.
 * A record that does not fit its fields makes ana_fastfmt_print() fail, and
 * the caller falls back for that record.  print.c also compares both
 * printers on a sample of the records and drops a compiled format that
 * disagrees.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"
#include "common/log.h"

enum node_kind {
	N_CONST,	/* value */
	N_FIELD,	/* unsigned read of @size bytes at @off */
	N_INDEX,	/* unsigned read of @size bytes at @off + index * @size */
	N_OP,		/* @op on left, right */
	N_COND,		/* left ? right->left : right->right (right is the ':' pair) */
	N_DLEN,		/* __get_dynamic_array_len: high half of the data_loc word */
	/* string-only kinds */
	N_STR,		/* a literal string */
	N_CHARS,	/* char array field: @off, @size, cut at the first NUL */
	N_DLOC,		/* __get_str: data_loc word at @off (+ @rel_base when relative) */
	N_FLAGS,	/* __print_flags(left, delim, syms) */
	N_SYMBOL,	/* __print_symbolic(left, syms) */
};

enum op_code {
	OP_NOT, OP_NE, OP_BNOT, OP_OR, OP_LOR, OP_AND, OP_LAND, OP_LT, OP_SHL, OP_LE,
	OP_GT, OP_SHR, OP_GE, OP_EQ, OP_SUB, OP_ADD, OP_DIV, OP_MOD, OP_MUL,
};

struct sym {
	long long val;
	const char *str;	/* borrowed from the tep event */
	size_t len;
};

struct node {
	enum node_kind kind;
	enum op_code op;
	uint64_t value;
	uint32_t off, size, rel_base;
	struct node *left, *right;
	const char *str;	/* N_STR, N_FLAGS delimiter */
	size_t len;
	struct sym *syms;
	size_t nr_syms;
};

enum piece_kind {
	P_TEXT,
	P_NUM,
	P_STR,
	P_PTR,		/* plain %p: "(nil)" or 0x... (glibc's %p) */
	P_FUNC,		/* %ps %pf (name) and %pS %pF (name+0xoff) via the kernel symbols */
};

struct piece {
	enum piece_kind kind;
	char conv;		/* d i u x X o; P_FUNC: s f S F */
	int ls;			/* -2 .. 2: hh h - l ll */
	bool left, zero;	/* '-' and '0' flags */
	bool wide;		/* 'z': the value is not cut to the ls width */
	int width;
	char *text;		/* P_TEXT */
	size_t len;
	struct node *arg;
};

struct ana_fastfmt {
	struct piece *v;
	size_t nr;
};

/* ---- compile ------------------------------------------------------------ */

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->left);
	node_free(n->right);
	free(n->syms);
	free(n);
}

void ana_fastfmt_free(struct ana_fastfmt *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++) {
		free(f->v[i].text);
		node_free(f->v[i].arg);
	}
	free(f->v);
	free(f);
}

static struct node *node_new(enum node_kind k)
{
	struct node *n = pp_xcalloc(1, sizeof(*n));

	n->kind = k;
	return n;
}

static const struct tep_format_field *field_of(const struct tep_event *ev, const char *name)
{
	return tep_find_any_field((struct tep_event *)ev, name);
}

/* libtraceevent's eval_flag(): a number, one of a few known names, or -1. */
static long long flag_value(const char *s)
{
	static const struct {
		const char *name;
		long long v;
	} known[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};

	if (isdigit((unsigned char)s[0]))
		return (long long)strtoull(s, NULL, 0);
	for (size_t i = 0; i < PP_ARRAY_SIZE(known); i++)
		if (!strcmp(known[i].name, s))
			return known[i].v;
	return -1;
}

static bool syms_compile(struct node *n, const struct tep_print_flag_sym *fs)
{
	for (const struct tep_print_flag_sym *f = fs; f; f = f->next) {
		n->syms = pp_xrealloc(n->syms, (n->nr_syms + 1) * sizeof(*n->syms));
		n->syms[n->nr_syms++] =
			(struct sym){ flag_value(f->value), f->str, strlen(f->str) };
	}
	return true;
}

static const struct {
	const char *s;
	enum op_code op;
} ops[] = {
	{ "!", OP_NOT }, { "!=", OP_NE }, { "~", OP_BNOT }, { "|", OP_OR }, { "||", OP_LOR },
	{ "&", OP_AND }, { "&&", OP_LAND }, { "<", OP_LT }, { "<<", OP_SHL }, { "<=", OP_LE },
	{ ">", OP_GT }, { ">>", OP_SHR }, { ">=", OP_GE }, { "==", OP_EQ }, { "-", OP_SUB },
	{ "+", OP_ADD }, { "/", OP_DIV }, { "%", OP_MOD }, { "*", OP_MUL },
};

static struct node *num_compile(const struct tep_event *ev, const struct tep_print_arg *a);

static struct node *op_compile(const struct tep_event *ev, const struct tep_print_arg *a)
{
	const char *op = a->op.op;
	struct node *n;

	if (!strcmp(op, "[")) {
		const struct tep_print_arg *l = a->op.left;
		const struct tep_format_field *f;
		if (!l || l->type != TEP_PRINT_FIELD)
			return NULL;	/* casts and dynamic arrays: libtraceevent */
		f = field_of(ev, l->field.name);
		if (!f || !f->elementsize || f->elementsize > 8 ||
		    (f->elementsize & (f->elementsize - 1)))
			return NULL;
		n = node_new(N_INDEX);
		n->off = (uint32_t)f->offset;
		n->size = (uint32_t)f->elementsize;
		n->left = num_compile(ev, a->op.right);
		if (!n->left) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	if (!strcmp(op, "?")) {
		const struct tep_print_arg *r = a->op.right;
		if (!r || r->type != TEP_PRINT_OP || strcmp(r->op.op, ":"))
			return NULL;
		n = node_new(N_COND);
		n->left = num_compile(ev, a->op.left);
		n->right = node_new(N_OP);
		n->right->left = num_compile(ev, r->op.left);
		n->right->right = num_compile(ev, r->op.right);
		if (!n->left || !n->right->left || !n->right->right) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(ops); i++) {
		if (strcmp(ops[i].s, op))
			continue;
		n = node_new(N_OP);
		n->op = ops[i].op;
		n->left = num_compile(ev, a->op.left);
		n->right = num_compile(ev, a->op.right);
		if (!n->left || !n->right) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	return NULL;
}

/* An argument in number context (libtraceevent's eval_num_arg). */
static struct node *num_compile(const struct tep_event *ev, const struct tep_print_arg *a)
{
	const struct tep_format_field *f;
	struct node *n;

	if (!a || a->type == TEP_PRINT_NULL)
		return node_new(N_CONST);
	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = node_new(N_CONST);
		n->value = strtoull(a->atom.atom, NULL, 0);
		return n;
	case TEP_PRINT_FIELD:
		f = field_of(ev, a->field.name);
		if (!f || (f->flags & TEP_FIELD_IS_ARRAY) ||
		    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return NULL;
		n = node_new(N_FIELD);
		n->off = (uint32_t)f->offset;
		n->size = (uint32_t)f->size;
		return n;
	case TEP_PRINT_OP:
		return op_compile(ev, a);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		if (!a->dynarray.field || a->dynarray.field->size != 4)
			return NULL;
		n = node_new(N_DLEN);
		n->off = (uint32_t)a->dynarray.field->offset;
		return n;
	default:
		return NULL;
	}
}

/* An argument in %s context (libtraceevent's print_str_arg). */
static struct node *str_compile(const struct tep_event *ev, const struct tep_print_arg *a)
{
	const struct tep_format_field *f;
	struct node *n;

	if (!a)
		return NULL;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = node_new(N_STR);
		n->str = a->atom.atom;
		n->len = strlen(n->str);
		return n;
	case TEP_PRINT_FIELD:
		f = field_of(ev, a->field.name);
		/* non-array long-sized fields print as a printk address: libtraceevent */
		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || !f->size)
			return NULL;
		n = node_new(N_CHARS);
		n->off = (uint32_t)f->offset;
		n->size = (uint32_t)f->size;
		return n;
	case TEP_PRINT_STRING:
		f = a->string.field ? a->string.field : field_of(ev, a->string.string);
		if (!f || f->size != 4)
			return NULL;
		n = node_new(N_DLOC);
		n->off = (uint32_t)f->offset;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			n->rel_base = (uint32_t)(f->offset + f->size);
		return n;
	case TEP_PRINT_FLAGS:
		n = node_new(N_FLAGS);
		n->str = a->flags.delim ? a->flags.delim : "";
		n->len = strlen(n->str);
		n->left = num_compile(ev, a->flags.field);
		if (!n->left || !syms_compile(n, a->flags.flags)) {
			node_free(n);
			return NULL;
		}
		return n;
	case TEP_PRINT_SYMBOL:
		n = node_new(N_SYMBOL);
		n->left = num_compile(ev, a->symbol.field);
		if (!n->left || !syms_compile(n, a->symbol.symbols)) {
			node_free(n);
			return NULL;
		}
		return n;
	case TEP_PRINT_OP: {
		const struct tep_print_arg *r = a->op.right;
		if (strcmp(a->op.op, "?") || !r || r->type != TEP_PRINT_OP || strcmp(r->op.op, ":"))
			return NULL;
		n = node_new(N_COND);
		n->left = num_compile(ev, a->op.left);
		n->right = node_new(N_OP);
		n->right->left = str_compile(ev, r->op.left);
		n->right->right = str_compile(ev, r->op.right);
		if (!n->left || !n->right->left || !n->right->right) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	default:
		return NULL;
	}
}

static void piece_push(struct ana_fastfmt *f, const struct piece *p)
{
	f->v = pp_xrealloc(f->v, (f->nr + 1) * sizeof(*f->v));
	f->v[f->nr++] = *p;
}

/* Literal text up to the next conversion, with the escapes libtraceevent resolves. */
static const char *text_compile(struct ana_fastfmt *f, const char *s)
{
	struct pp_buf b = PP_BUF_INIT;
	struct piece p = { .kind = P_TEXT };

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			switch (*s) {
			case 'n': pp_buf_addch(&b, '\n'); break;
			case 't': pp_buf_addch(&b, '\t'); break;
			case 'r': pp_buf_addch(&b, '\r'); break;
			default: pp_buf_addch(&b, *s); break;
			}
		} else if (*s == '%') {
			if (s[1] != '%')
				break;
			pp_buf_addch(&b, '%');
			s++;
		} else {
			pp_buf_addch(&b, *s);
		}
	}
	p.len = b.len;
	p.text = pp_buf_detach(&b);
	piece_push(f, &p);
	return s;
}

/* One conversion at @s ('%'); returns the text after it, or NULL if unsupported. */
static const char *conv_compile(struct ana_fastfmt *f, const struct tep_event *ev, const char *s,
				const struct tep_print_arg **arg)
{
	struct piece p = { 0 };

	for (s++; *s; s++) {
		/* a width past 4 digits: libtraceevent's (evformat.c refuses such formats) */
		if (p.width > 9999)
			return NULL;
		switch (*s) {
		case '-': p.left = true; continue;
		case '0':
			if (!p.width) {
				p.zero = true;
				continue;
			}
			p.width = p.width * 10;
			continue;
		case '1' ... '9': p.width = p.width * 10 + (*s - '0'); continue;
		case 'h': p.ls--; continue;
		case 'l': p.ls++; continue;
		case 'L': p.ls = 2; continue;
		case 'z': case 'Z': p.wide = true; continue;	/* size_t: printed in full */
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			if (!*arg || p.ls < -2 || p.ls > 2)
				return NULL;
			p.kind = P_NUM;
			p.conv = *s;
			p.arg = num_compile(ev, *arg);
			break;
		case 's':
			if (!*arg || p.ls || p.zero || p.wide)
				return NULL;
			p.kind = P_STR;
			p.arg = str_compile(ev, *arg);
			break;
		case 'p':
			/* libtraceevent's pointer extensions; others print as %p */
			if (!*arg || strchr("MmIiUh", s[1]))
				return NULL;
			p.kind = strchr("FfSs", s[1]) && s[1] ? P_FUNC : P_PTR;
			if (p.kind == P_FUNC)
				p.conv = *++s;
			p.arg = num_compile(ev, *arg);
			break;
		default:
			return NULL;	/* %c, precision, '*', '#', ... */
		}
		if (!p.arg)
			return NULL;
		*arg = (*arg)->next;
		piece_push(f, &p);
		return s + 1;
	}
	return NULL;
}

int ana_fastfmt_compile(const struct tep_event *ev, struct ana_fastfmt **out)
{
	struct ana_fastfmt *f;
	const struct tep_print_arg *arg;
	const char *s;

	*out = NULL;
	if (!ev || !ev->print_fmt.format || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)))
		return PP_ENOTSUP;
	f = pp_xcalloc(1, sizeof(*f));
	arg = ev->print_fmt.args;
	s = ev->print_fmt.format;
	while (*s) {
		if (*s == '%' && s[1] != '%')
			s = conv_compile(f, ev, s, &arg);
		else
			s = text_compile(f, s);
		if (!s) {
			ana_fastfmt_free(f);
			return PP_ENOTSUP;
		}
	}
	*out = f;
	return 0;
}

/* ---- print -------------------------------------------------------------- */

struct ctx {
	struct ana_session *s;
	const uint8_t *raw;
	uint32_t sz;
	bool bad;		/* a read outside the record */
};

static uint64_t rd(struct ctx *c, uint64_t off, uint32_t size)
{
	uint64_t v = 0;

	if (off + size > c->sz) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->raw + off, size);	/* little-endian captures on little-endian hosts */
	return v;
}

static uint64_t eval(struct ctx *c, const struct node *n)
{
	uint64_t l, r;

	switch (n->kind) {
	case N_CONST:
		return n->value;
	case N_FIELD:
		return rd(c, n->off, n->size);
	case N_INDEX:
		return rd(c, n->off + eval(c, n->left) * n->size, n->size);
	case N_DLEN:
		return rd(c, n->off, 4) >> 16;
	case N_COND:
		return eval(c, n->left) ? eval(c, n->right->left) : eval(c, n->right->right);
	case N_OP:
		break;
	default:
		c->bad = true;
		return 0;
	}
	l = eval(c, n->left);
	r = eval(c, n->right);
	switch (n->op) {
	case OP_NOT: return !r;
	case OP_NE: return l != r;
	case OP_BNOT: return ~r;
	case OP_OR: return l | r;
	case OP_LOR: return l || r;
	case OP_AND: return l & r;
	case OP_LAND: return l && r;
	case OP_LT: return l < r;
	case OP_SHL: return r < 64 ? l << r : 0;
	case OP_LE: return l <= r;
	case OP_GT: return l > r;
	case OP_SHR: return r < 64 ? l >> r : 0;
	case OP_GE: return l >= r;
	case OP_EQ: return l == r;
	case OP_SUB: return l - r;
	case OP_ADD: return l + r;
	case OP_DIV:
	case OP_MOD:
		if (!r) {
			c->bad = true;	/* libtraceevent would fault: let it decide */
			return 0;
		}
		return n->op == OP_DIV ? l / r : l % r;
	case OP_MUL: return l * r;
	}
	return 0;
}

static void pad(struct pp_buf *out, int n, char ch)
{
	if (n <= 0)
		return;
	pp_buf_grow(out, (size_t)n + 1);
	memset(out->data + out->len, ch, (size_t)n);
	out->len += (size_t)n;
	out->data[out->len] = '\0';
}

static void put_str(struct pp_buf *out, const struct piece *p, const char *s, size_t len)
{
	if (!p->left)
		pad(out, p->width - (int)len, ' ');
	pp_buf_add(out, s, len);
	if (p->left)
		pad(out, p->width - (int)len, ' ');
}

static void put_num(struct pp_buf *out, const struct piece *p, uint64_t v)
{
	char tmp[32], *e = tmp + sizeof(tmp), *d = e;
	unsigned bits = p->wide ? 64 : p->ls <= -2 ? 8 : p->ls == -1 ? 16 : p->ls == 0 ? 32 : 64;
	bool neg = false;

	if (bits < 64)
		v &= (1ull << bits) - 1;
	if (p->conv == 'd' || p->conv == 'i') {
		if (bits < 64 && (v >> (bits - 1)) & 1)
			v |= ~0ull << bits;	/* sign-extend */
		if ((int64_t)v < 0) {
			neg = true;
			v = -v;
		}
	}
	switch (p->conv) {
	case 'x':
	case 'X': {
		const char *dig = p->conv == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";
		do {
			*--d = dig[v & 15];
			v >>= 4;
		} while (v);
		break;
	}
	case 'o':
		do {
			*--d = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		break;
	default:
		do {
			*--d = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	int len = (int)(e - d) + neg;
	if (p->left) {
		if (neg)
			pp_buf_addch(out, '-');
		pp_buf_add(out, d, (size_t)(e - d));
		pad(out, p->width - len, ' ');
	} else if (p->zero) {
		if (neg)
			pp_buf_addch(out, '-');
		pad(out, p->width - len, '0');
		pp_buf_add(out, d, (size_t)(e - d));
	} else {
		pad(out, p->width - len, ' ');
		if (neg)
			pp_buf_addch(out, '-');
		pp_buf_add(out, d, (size_t)(e - d));
	}
}

static void put_strarg(struct ctx *c, struct pp_buf *out, const struct piece *p,
		       const struct node *n)
{
	switch (n->kind) {
	case N_STR:
		put_str(out, p, n->str, n->len);
		return;
	case N_CHARS: {
		if ((uint64_t)n->off + n->size > c->sz) {
			c->bad = true;
			return;
		}
		const char *s = (const char *)c->raw + n->off;
		const char *nul = memchr(s, 0, n->size);
		put_str(out, p, s, nul ? (size_t)(nul - s) : n->size);
		return;
	}
	case N_DLOC: {
		uint32_t off = (uint32_t)rd(c, n->off, 4) & 0xffff;
		off += n->rel_base;
		if (c->bad || off >= c->sz) {
			c->bad = true;
			return;
		}
		const char *s = (const char *)c->raw + off;
		const char *nul = memchr(s, 0, c->sz - off);
		if (!nul) {
			c->bad = true;	/* unterminated: libtraceevent reads on */
			return;
		}
		put_str(out, p, s, (size_t)(nul - s));
		return;
	}
	case N_SYMBOL: {
		long long v = (long long)eval(c, n->left);
		for (size_t i = 0; i < n->nr_syms; i++)
			if (n->syms[i].val == v) {
				put_str(out, p, n->syms[i].str, n->syms[i].len);
				return;
			}
		pp_buf_addf(out, "0x%llx", (unsigned long long)v);
		return;
	}
	case N_FLAGS: {
		long long v = (long long)eval(c, n->left);
		bool printed = false;
		for (size_t i = 0; i < n->nr_syms; i++) {
			long long f = n->syms[i].val;
			if (!v && f < 0) {
				put_str(out, p, n->syms[i].str, n->syms[i].len);
				break;
			}
			if (f > 0 && (v & f) == f) {
				if (printed)
					pp_buf_add(out, n->str, n->len);
				put_str(out, p, n->syms[i].str, n->syms[i].len);
				printed = true;
				v &= ~f;
			}
		}
		if (v) {
			if (printed)
				pp_buf_add(out, n->str, n->len);
			pp_buf_addf(out, "0x%llx", (unsigned long long)v);
		}
		return;
	}
	case N_COND:
		put_strarg(c, out, p, eval(c, n->left) ? n->right->left : n->right->right);
		return;
	default:
		c->bad = true;
	}
}

static void put_func(struct ctx *c, struct pp_buf *out, const struct piece *p, uint64_t v)
{
	uint64_t off = 0;
	const char *name = ana_ksym(c->s, v, &off);

	if (!name) {
		pp_buf_addf(out, "0x%llx", (unsigned long long)v);
		return;
	}
	pp_buf_adds(out, name);
	if (p->conv == 'S' || p->conv == 'F')
		pp_buf_addf(out, "+0x%llx", (unsigned long long)off);
}

bool ana_fastfmt_print(struct ana_session *s, const struct ana_fastfmt *f, const uint8_t *raw,
		       uint32_t raw_sz, struct pp_buf *out)
{
	struct ctx c = { s, raw, raw_sz, false };
	size_t start = out->len;

	for (size_t i = 0; i < f->nr && !c.bad; i++) {
		const struct piece *p = &f->v[i];
		switch (p->kind) {
		case P_TEXT:
			pp_buf_add(out, p->text, p->len);
			break;
		case P_NUM: {
			uint64_t v = eval(&c, p->arg);
			if (!c.bad)
				put_num(out, p, v);
			break;
		}
		case P_STR:
			put_strarg(&c, out, p, p->arg);
			break;
		case P_PTR:
		case P_FUNC: {
			uint64_t v = eval(&c, p->arg);
			if (c.bad)
				break;
			if (p->kind == P_FUNC)
				put_func(&c, out, p, v);
			else if (!v)
				pp_buf_adds(out, "(nil)");
			else
				pp_buf_addf(out, "0x%llx", (unsigned long long)v);
			break;
		}
		}
	}
	if (c.bad) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		return false;
	}
	return true;
}
