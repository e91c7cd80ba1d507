/* SPDX-License-Identifier: MIT */
/*
 * expr-vm.c - run a compiled expression on one raw record.
 *
 * The stack is a local array (the compiler proved its depth), so evaluation
 * allocates nothing.  Pointers are process addresses, and every access
 * through one is checked against the regions that may be read: the raw
 * record, the program's constants, and the strings returned by callbacks
 * during this evaluation (a small ring of slots).  Anything else reads as 0
 * or "" and counts a fault.  Arithmetic is done on uint64_t, so overflow
 * wraps instead of being undefined; x / 0 is 0.
 * A program that assigns (=, ++, --) runs on a copy of the record on the
 * stack, the only memory it may write: the caller's record is borrowed and
 * may be shared, and a store anywhere else is a fault that writes nothing.
 * Not here: compiling (expr-parse.c), listings and traces (expr-dump.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/expr-internal.h"
#include "common/shell.h"

struct vm {
	const struct pp_expr *e;
	struct pp_expr_ctx *ctx;
	uint64_t raw, raw_end;
	bool writable;		/* raw .. raw_end is this evaluation's copy */
	uint64_t pool, pool_end;
	uint64_t ext[EXPR_EXT_SLOTS][2];
	unsigned nr_ext;
};

/* Bytes readable from @a, 0 if @a is in no region. */
static uint64_t vm_avail(const struct vm *vm, uint64_t a)
{
	unsigned n = vm->nr_ext < EXPR_EXT_SLOTS ? vm->nr_ext : EXPR_EXT_SLOTS;

	if (a >= vm->raw && a < vm->raw_end)
		return vm->raw_end - a;
	if (a >= vm->pool && a < vm->pool_end)
		return vm->pool_end - a;
	for (unsigned i = 0; i < n; i++)
		if (a >= vm->ext[i][0] && a < vm->ext[i][1])
			return vm->ext[i][1] - a;
	return 0;
}

static uint64_t rd(uint64_t a, int size, bool sign)
{
	const void *p = (const void *)(uintptr_t)a;

	switch (size) {
	case 1: {
		uint8_t v;

		memcpy(&v, p, 1);
		return sign ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return sign ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return sign ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

static void wr(uint64_t a, int size, uint64_t v)
{
	void *p = (void *)(uintptr_t)a;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case 1: memcpy(p, &v8, 1); break;
	case 2: memcpy(p, &v16, 2); break;
	case 4: memcpy(p, &v32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t ext_value(uint64_t v, int size, bool sign)
{
	switch (size) {
	case 1: return sign ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	case 2: return sign ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	case 4: return sign ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	default: return v;
	}
}

static uint64_t vm_fault(struct vm *vm)
{
	vm->ctx->nr_faults++;
	return 0;
}

static uint64_t vm_load(struct vm *vm, uint64_t a, int size, bool sign)
{
	if (vm_avail(vm, a) < (uint64_t)size)
		return vm_fault(vm);
	return rd(a, size, sign);
}

/* Whether @size bytes at @a may be written: inside this evaluation's copy. */
static bool vm_writable(const struct vm *vm, uint64_t a, int size)
{
	return vm->writable && a >= vm->raw && a < vm->raw_end &&
	       vm->raw_end - a >= (uint64_t)size;
}

/* OP_ST: store @v at @a, or count a fault. */
static void vm_store(struct vm *vm, uint64_t a, int size, uint64_t v)
{
	if (vm_writable(vm, a, size))
		wr(a, size, v);
	else
		vm_fault(vm);
}

/* OP_INC at @a: the new or the old value, or 0 and a fault. */
static uint64_t vm_inc(struct vm *vm, const struct expr_insn *in, uint64_t a)
{
	bool sign = in->a & INC_SIGNED;
	uint64_t old, v;

	if (!vm_writable(vm, a, in->size))
		return vm_fault(vm);
	old = ext_value(rd(a, in->size, in->sign), in->nargs, sign);
	v = ext_value(old + (uint64_t)in->imm, in->nargs, sign);
	wr(a, in->size, v);
	return in->a & INC_POST ? old : v;
}

/* A field of the raw record at @off. */
static uint64_t vm_field(struct vm *vm, uint64_t off, int size, bool sign)
{
	if (off + (uint64_t)size > vm->raw_end - vm->raw)
		return vm_fault(vm);
	return rd(vm->raw + off, size, sign);
}

/* The __data_loc word at @off: address of the data (0 if bad) and its length. */
static uint64_t vm_loc(struct vm *vm, uint64_t off, uint32_t *len, uint32_t *doff)
{
	uint32_t v;

	*len = 0;
	if (off + 4 > vm->raw_end - vm->raw) {
		*doff = 0;
		return vm_fault(vm);
	}
	v = (uint32_t)rd(vm->raw + off, 4, false);
	*doff = v & 0xffff;
	if ((uint64_t)*doff + (v >> 16) > vm->raw_end - vm->raw)
		return vm_fault(vm);
	*len = v >> 16;
	return vm->raw + *doff;
}

/* Bytes from @a (in the record) to the end of the string field holding it, or @n. */
static uint64_t str_field_avail(const struct vm *vm, uint64_t a, uint64_t n)
{
	const struct pp_expr *e = vm->e;
	uint64_t raw_sz = vm->raw_end - vm->raw;

	for (unsigned i = 0; i < e->nr_str_fields; i++) {
		const struct expr_str_field *sf = &e->str_fields[i];
		uint64_t b = vm->raw + sf->off, end = b + sf->size;

		if (!sf->size) {	/* __data_loc: the data it points at */
			uint32_t v;

			if (sf->off + 4ull > raw_sz)
				continue;
			v = (uint32_t)rd(b, 4, false);
			b = vm->raw + (v & 0xffff);
			end = b + (v >> 16);
		}
		if (a >= b && a < end)
			return end - a < n ? end - a : n;
	}
	return n;
}

/*
 * The string at @a, bounded by its region and, inside the record, by its
 * string field; "" for NULL or an unreadable address.
 */
static const char *vm_str(struct vm *vm, uint64_t a, size_t *len)
{
	uint64_t n = vm_avail(vm, a);
	const char *s;

	if (!n) {
		if (a)
			vm_fault(vm);
		*len = 0;
		return "";
	}
	if (a < vm->raw_end && a >= vm->raw)
		n = str_field_avail(vm, a, n);
	s = (const char *)(uintptr_t)a;
	*len = strnlen(s, (size_t)n);
	return s;
}

static uint64_t vm_ext(struct vm *vm, const char *s)
{
	uint64_t *slot;

	if (!s)
		return 0;
	slot = vm->ext[vm->nr_ext++ % EXPR_EXT_SLOTS];
	slot[0] = (uintptr_t)s;
	slot[1] = slot[0] + strlen(s) + 1;
	return slot[0];
}

/* printf() output: a stream, or a bounded buffer (system()). */
struct fmt_out {
	FILE *f;
	char *buf;
	size_t cap, len;
	int64_t count;
	bool shell;		/* system(): text from events (%s, %c) goes in single quotes */
};

static void __attribute__((format(printf, 2, 3))) out_put(struct fmt_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->f) {
		n = vfprintf(o->f, fmt, ap);
	} else {
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		if (n > 0)
			o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
	}
	va_end(ap);
	if (n > 0)
		o->count += n;
}

/*
 * @n bytes of @s as one shell word: in single quotes, a quote as '\''.  The
 * command's own text is the user's; what an event carries (a comm, a path
 * from a stranger's capture) can only ever be an argument.
 */
static void out_shell_word(struct fmt_out *o, const char *s, size_t n)
{
	out_put(o, "'");
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'')
			out_put(o, "'\\''");
		else
			out_put(o, "%c", s[i]);
	}
	out_put(o, "'");
}

static int fmt_number(const char *fmt, size_t *j, size_t flen, const uint64_t *args, int nargs,
		      int *ai)
{
	int v = 0;

	if (*j < flen && fmt[*j] == '*') {
		(*j)++;
		return *ai < nargs ? (int)args[(*ai)++] : 0;
	}
	while (*j < flen && fmt[*j] >= '0' && fmt[*j] <= '9') {
		if (v < 100000)
			v = v * 10 + fmt[*j] - '0';
		(*j)++;
	}
	return v;
}

/* "%" + the allowed @flags + width + precision + @conv, for one libc conversion. */
static void build_spec(char *spec, size_t sz, const char *flags, const char *allowed, int width,
		       int prec, const char *conv)
{
	size_t n = 0;

	spec[n++] = '%';
	for (; *flags; flags++)
		if (strchr(allowed, *flags))
			spec[n++] = *flags;
	if (width)
		n += (size_t)snprintf(spec + n, sz - n, "%d", width);
	if (prec >= 0)
		n += (size_t)snprintf(spec + n, sz - n, ".%d", prec);
	snprintf(spec + n, sz - n, "%s", conv);
}

/*
 * printf(fmt, args...) with the arguments as 64-bit values: each conversion
 * is rebuilt with an explicit width, precision and "ll" before reaching
 * libc, strings are bounded, and %n or floating point never get through.
 * So the specs are built at run time (-Wformat-nonliteral is off here), but
 * each one's conversion is fixed by the case that builds it, and so is the
 * type of the argument passed with it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void vm_format(struct vm *vm, const uint64_t *args, int nargs, struct fmt_out *o)
{
	size_t flen, i = 0;
	const char *fmt = vm_str(vm, args[0], &flen);
	int ai = 1;

	while (i < flen) {
		size_t j = i, lit;
		char spec[32], flags[8];
		int nflags = 0, width, prec = -1, lenmod = 4;
		uint64_t v;

		while (j < flen && fmt[j] != '%')
			j++;
		lit = j - i;
		if (lit)
			out_put(o, "%.*s", (int)lit, fmt + i);
		if (j >= flen)
			break;
		i = j++;
		if (j < flen && fmt[j] == '%') {
			out_put(o, "%%");
			i = j + 1;
			continue;
		}
		while (j < flen && strchr("-+ #0", fmt[j]) && fmt[j]) {
			if (nflags < (int)sizeof(flags) - 1 &&
			    !memchr(flags, fmt[j], (size_t)nflags))
				flags[nflags++] = fmt[j];
			j++;
		}
		flags[nflags] = '\0';
		width = fmt_number(fmt, &j, flen, args, nargs, &ai);
		if (width < 0) {
			width = -width;
			if (!strchr(flags, '-') && nflags < (int)sizeof(flags) - 1) {
				flags[nflags++] = '-';
				flags[nflags] = '\0';
			}
		}
		if (j < flen && fmt[j] == '.') {
			j++;
			prec = fmt_number(fmt, &j, flen, args, nargs, &ai);
		}
		width = width > 1024 ? 1024 : width;
		prec = prec > 1024 ? 1024 : prec;
		while (j < flen && strchr("hlLqjzt", fmt[j]) && fmt[j]) {
			if (fmt[j] == 'h')
				lenmod = lenmod == 2 ? 1 : 2;
			else
				lenmod = 8;
			j++;
		}
		if (j >= flen) {
			out_put(o, "%.*s", (int)(flen - i), fmt + i);
			break;
		}
		if (!strchr("diuoxXcsp", fmt[j]) || !fmt[j]) {
			out_put(o, "%.*s", (int)(j + 1 - i), fmt + i);	/* as written */
			i = j + 1;
			continue;
		}
		v = ai < nargs ? args[ai++] : 0;
		switch (fmt[j]) {
		case 'd': case 'i': {
			long long sv = lenmod == 1 ? (signed char)v : lenmod == 2 ? (short)v :
				       lenmod == 4 ? (int)v : (long long)v;

			build_spec(spec, sizeof(spec), flags, "-+ 0", width, prec, "lld");
			out_put(o, spec, sv);
			break;
		}
		case 'u': case 'o': case 'x': case 'X': {
			unsigned long long uv = lenmod == 1 ? (unsigned char)v :
						lenmod == 2 ? (unsigned short)v :
						lenmod == 4 ? (unsigned)v : v;
			char conv[4] = { 'l', 'l', fmt[j], 0 };

			build_spec(spec, sizeof(spec), flags, fmt[j] == 'u' ? "-0" : "-#0", width,
				   prec, conv);
			out_put(o, spec, uv);
			break;
		}
		case 'c':
			if (o->shell) {
				char ch = (char)v;

				out_shell_word(o, &ch, 1);
				break;
			}
			build_spec(spec, sizeof(spec), flags, "-", width, -1, "c");
			out_put(o, spec, (int)(unsigned char)v);
			break;
		case 'p':
			build_spec(spec, sizeof(spec), flags, "-", width, -1, "p");
			out_put(o, spec, (void *)(uintptr_t)v);
			break;
		default: {	/* 's' */
			size_t slen;
			const char *str = vm_str(vm, v, &slen);

			if (prec >= 0 && (size_t)prec < slen)
				slen = (size_t)prec;
			if (o->shell) {
				out_shell_word(o, str, slen);
				break;
			}
			build_spec(spec, sizeof(spec), flags, "-", width, -1, ".*s");
			out_put(o, spec, (int)slen, str);
			break;
		}
		}
		i = j + 1;
	}
}
#pragma GCC diagnostic pop

static int64_t vm_call(struct vm *vm, int fn, const uint64_t *a, int n)
{
	const struct pp_expr_ops *ops = vm->ctx->ops;
	void *priv = vm->ctx->priv;
	struct fmt_out o = { 0 };
	char cmd[4096];

	switch (fn) {
	case FN_PRINTF:
		o.f = vm->ctx->out ? vm->ctx->out : stdout;
		vm_format(vm, a, n, &o);
		return o.count > INT32_MAX ? INT32_MAX : o.count;
	case FN_SYSTEM:
		o.buf = cmd;
		o.cap = sizeof(cmd);
		o.shell = true;
		cmd[0] = '\0';
		vm_format(vm, a, n, &o);
		if (o.len >= sizeof(cmd) - 1)
			return -1;	/* cut: not the command that was asked for */
		fflush(NULL);	/* the command's output after what was printed before */
		return (int32_t)pp_shell(cmd);
	case FN_KSYMBOL:
		return (int64_t)vm_ext(vm, ops && ops->ksymbol ? ops->ksymbol(priv, a[0]) : NULL);
	case FN_COMM_GET:
		return (int64_t)vm_ext(vm, ops && ops->comm_get ? ops->comm_get(priv, (int)a[0])
					   : NULL);
	case FN_SYSCALL_NAME:
		return (int64_t)vm_ext(vm, ops && ops->syscall_name ?
					   ops->syscall_name(priv, (int)a[0]) : NULL);
	case FN_EXIT_REASON_STR: {
		const char *s = pp_exit_reason_str((int)a[0], a[1]);

		return (int64_t)vm_ext(vm, s ? s : "UNKNOWN");
	}
	case FN_NTOHL:
		return __builtin_bswap32((uint32_t)a[0]);
	case FN_NTOHS:
		return __builtin_bswap16((uint16_t)a[0]);
	default: {	/* FN_STRNCMP */
		size_t la, lb;
		const char *s1 = vm_str(vm, a[0], &la), *s2 = vm_str(vm, a[1], &lb);

		for (uint64_t i = 0; i < a[2]; i++) {
			unsigned char c1 = i < la ? (unsigned char)s1[i] : 0;
			unsigned char c2 = i < lb ? (unsigned char)s2[i] : 0;

			if (c1 != c2)
				return c1 < c2 ? -1 : 1;
			if (!c1)
				break;
		}
		return 0;
	}
	}
}

/* Doubles on the stack are their bits; -0.0 becomes +0.0, so that 0.0 is the only false. */
static double dv(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t db(double d)
{
	uint64_t u;

	d += 0.0;
	memcpy(&u, &d, sizeof(u));
	return u;
}

/* (T)d for an integer T of @size bytes: truncated, NaN 0, out of range clamped (C leaves it undefined). */
static uint64_t d2i(double d, int size, bool sign)
{
	uint64_t v;

	if (d != d)
		v = 0;
	else if (!sign && size == 8)
		v = d <= 0 ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
	else
		v = d <= -9223372036854775808.0 ? (uint64_t)INT64_MIN :
		    d >= 9223372036854775808.0 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)d;
	return size < 8 ? ext_value(v, size, sign) : v;
}

static inline __attribute__((always_inline)) uint64_t
vm_exec(struct vm *vm, struct pp_buf *trace)
{
	const struct expr_insn *code = vm->e->code, *pc = code;
	uint64_t s[EXPR_STACK + 1];
	uint64_t a, b;
	uint32_t len, doff;
	int sp = 0;	/* s[sp - 1] is the top */

	for (;;) {
		const struct expr_insn *in = pc++;

		switch (in->op) {
		case OP_IMM: s[sp++] = (uint64_t)in->imm; break;
		case OP_STR: s[sp++] = vm->pool + in->a; break;
		case OP_LDRAW: s[sp++] = vm_field(vm, in->a, in->size, in->sign); break;
		case OP_ADDR: s[sp++] = vm->raw + in->a; break;
		case OP_LOC: s[sp++] = vm_loc(vm, in->a, &len, &doff); break;
		case OP_LOCOFF: vm_loc(vm, in->a, &len, &doff); s[sp++] = doff; break;
		case OP_LOCLEN: vm_loc(vm, in->a, &len, &doff); s[sp++] = len; break;
		case OP_IDX:
			a = s[sp - 1];
			a = in->a + a * in->size;
			s[sp - 1] = s[sp - 1] < (uint64_t)in->imm ?
				vm_field(vm, a, in->size, in->sign) : vm_fault(vm);
			break;
		case OP_IDXLOC:
			a = s[sp - 1];
			b = vm_loc(vm, in->a, &len, &doff);
			s[sp - 1] = b && a < len / in->size ?
				vm_field(vm, doff + a * in->size, in->size, in->sign) :
				vm_fault(vm);
			break;
		case OP_IDXADDR:
			a = s[sp - 1];
			s[sp - 1] = a < (uint64_t)in->imm ? vm->raw + in->a + a * in->size : 0;
			break;
		case OP_LOCADDR:
			a = s[sp - 1];
			b = vm_loc(vm, in->a, &len, &doff);
			s[sp - 1] = b && a < len / in->size ? b + a * in->size : 0;
			break;
		case OP_LD: s[sp - 1] = vm_load(vm, s[sp - 1], in->size, in->sign); break;
		case OP_ST:
			b = s[--sp];
			vm_store(vm, s[sp - 1], in->size, b);
			s[sp - 1] = ext_value(b, in->size, in->sign);
			break;
		case OP_INC: s[sp - 1] = vm_inc(vm, in, s[sp - 1]); break;
		case OP_VAR: s[sp++] = vm->ctx->vars ? vm->ctx->vars[in->a] : 0; break;
		case OP_CPU: s[sp++] = (uint64_t)(int64_t)vm->ctx->cpu; break;
		case OP_PID: s[sp++] = (uint64_t)(int64_t)vm->ctx->pid; break;
		case OP_TID: s[sp++] = (uint64_t)(int64_t)vm->ctx->tid; break;
		case OP_TIME: s[sp++] = vm->ctx->time_ns; break;
#define BIN(OP, EXPR)                                                                      \
		case OP:                                                                   \
			b = s[--sp];                                                       \
			a = s[sp - 1];                                                     \
			s[sp - 1] = (EXPR);                                                \
			break;
		BIN(OP_ADD, a + b)
		BIN(OP_SUB, a - b)
		BIN(OP_MUL, a * b)
		BIN(OP_DIV, !b ? 0 : b == UINT64_MAX ? 0 - a : (uint64_t)((int64_t)a / (int64_t)b))
		BIN(OP_DIVU, b ? a / b : 0)
		BIN(OP_MOD, !b || b == UINT64_MAX ? 0 : (uint64_t)((int64_t)a % (int64_t)b))
		BIN(OP_MODU, b ? a % b : 0)
		BIN(OP_SHL, a << (b & 63))
		BIN(OP_SHR, (uint64_t)((int64_t)a >> (b & 63)))
		BIN(OP_SHRU, a >> (b & 63))
		BIN(OP_AND, a & b)
		BIN(OP_OR, a | b)
		BIN(OP_XOR, a ^ b)
		BIN(OP_EQ, a == b)
		BIN(OP_NE, a != b)
		BIN(OP_LT, (int64_t)a < (int64_t)b)
		BIN(OP_LTU, a < b)
		BIN(OP_LE, (int64_t)a <= (int64_t)b)
		BIN(OP_LEU, a <= b)
		BIN(OP_GT, (int64_t)a > (int64_t)b)
		BIN(OP_GTU, a > b)
		BIN(OP_GE, (int64_t)a >= (int64_t)b)
		BIN(OP_GEU, a >= b)
		BIN(OP_FADD, db(dv(a) + dv(b)))
		BIN(OP_FSUB, db(dv(a) - dv(b)))
		BIN(OP_FMUL, db(dv(a) * dv(b)))
		BIN(OP_FDIV, db(dv(a) / dv(b)))
		BIN(OP_FEQ, dv(a) == dv(b))
		BIN(OP_FNE, dv(a) != dv(b))
		BIN(OP_FLT, dv(a) < dv(b))
		BIN(OP_FLE, dv(a) <= dv(b))
		BIN(OP_FGT, dv(a) > dv(b))
		BIN(OP_FGE, dv(a) >= dv(b))
#undef BIN
		case OP_FNEG: s[sp - 1] = db(-dv(s[sp - 1])); break;
		case OP_FBOOL: s[sp - 1] = dv(s[sp - 1]) != 0; break;
		case OP_I2D: s[sp - 1] = db((double)(int64_t)s[sp - 1]); break;
		case OP_U2D: s[sp - 1] = db((double)s[sp - 1]); break;
		case OP_D2I: s[sp - 1] = d2i(dv(s[sp - 1]), in->size, in->sign); break;
		case OP_STREQ: case OP_STRNE: case OP_GLOB: {
			size_t la, lb;
			const char *sa, *sb;
			bool r;

			b = s[--sp];
			sa = vm_str(vm, s[sp - 1], &la);
			sb = vm_str(vm, b, &lb);
			if (in->op == OP_GLOB)
				r = pp_glob_matchn(sb, lb, sa, la);
			else
				r = (la == lb && !memcmp(sa, sb, la)) == (in->op == OP_STREQ);
			s[sp - 1] = r;
			break;
		}
		case OP_NEG: s[sp - 1] = 0 - s[sp - 1]; break;
		case OP_NOT: s[sp - 1] = !s[sp - 1]; break;
		case OP_BNOT: s[sp - 1] = ~s[sp - 1]; break;
		case OP_BOOL: s[sp - 1] = !!s[sp - 1]; break;
		case OP_MULI: s[sp - 1] *= (uint64_t)in->imm; break;
		case OP_SEXT: s[sp - 1] = ext_value(s[sp - 1], in->size, true); break;
		case OP_ZEXT: s[sp - 1] = ext_value(s[sp - 1], in->size, false); break;
		case OP_JMP: pc = code + in->a; break;
		case OP_JZ:
			if (!s[--sp])
				pc = code + in->a;
			break;
		case OP_JZK:
			if (!s[sp - 1])
				pc = code + in->a;
			else
				sp--;
			break;
		case OP_JNZK:
			if (s[sp - 1])
				pc = code + in->a;
			else
				sp--;
			break;
		case OP_POP: sp--; break;
		case OP_CPUS:
			a = s[sp - 1];
			s[sp - 1] = a < (uint64_t)in->imm &&
				    (vm->e->pool[in->a + a / 8] >> (a % 8) & 1);
			break;
		case OP_CALL:
			sp -= in->nargs;
			s[sp] = (uint64_t)vm_call(vm, in->a, s + sp, in->nargs);
			sp++;
			break;
		case OP_RET:
			return sp ? s[sp - 1] : 0;
		default:	/* OP_NOP never survives pp_expr_finish() */
			break;
		}
		if (trace) {
			pp_expr_insn_print(vm->e, (uint32_t)(in - code), trace);
			if (sp)
				pp_buf_addf(trace, "  -> %lld (%#llx)", (long long)s[sp - 1],
					    (unsigned long long)s[sp - 1]);
			pp_buf_addch(trace, '\n');
		}
	}
}

static void vm_init(struct vm *vm, const struct pp_expr *e, struct pp_expr_ctx *ctx)
{
	vm->e = e;
	vm->ctx = ctx;
	vm->raw = (uintptr_t)ctx->raw;
	vm->raw_end = ctx->raw ? vm->raw + ctx->raw_sz : vm->raw;
	vm->writable = false;
	vm->pool = (uintptr_t)e->pool;
	vm->pool_end = vm->pool + e->pool_sz;
	vm->nr_ext = 0;
}

bool pp_expr_const_eval(const struct expr_insn *code, uint32_t n, int64_t *out)
{
	struct expr_insn buf[33];
	struct pp_expr e = { .code = buf };
	struct pp_expr_ctx ctx = { 0 };
	struct vm vm;

	if (n >= PP_ARRAY_SIZE(buf))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		int op = code[i].op;

		if (op != OP_NOP && op != OP_IMM && (op < OP_ADD || op > OP_GEU) &&
		    (op < OP_NEG || op > OP_ZEXT) && (op < OP_FADD || op > OP_D2I))
			return false;
	}
	memcpy(buf, code, n * sizeof(*buf));
	memset(&buf[n], 0, sizeof(buf[n]));
	buf[n].op = OP_RET;
	vm_init(&vm, &e, &ctx);
	*out = (int64_t)vm_exec(&vm, NULL);
	return true;
}

/* The string at @a into @buf (@sz > 0), cut to fit. */
static void str_out(struct vm *vm, uint64_t a, char *buf, size_t sz)
{
	size_t len;
	const char *s = vm_str(vm, a, &len);

	if (len >= sz)
		len = sz - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

/*
 * Run a program that assigns on a copy of the record: its first
 * EXPR_COPY_MAX bytes, which hold any record perf writes (its sizes are 16
 * bits); what lies beyond reads as outside the record.  The string result
 * is copied out into @buf, if given, while the copy lives.  Not inlined, so
 * that the copy is on the stack only for these programs.
 */
static uint64_t __attribute__((noinline))
vm_run_on_copy(const struct pp_expr *e, struct pp_expr_ctx *ctx, struct pp_buf *trace,
	       char *buf, size_t sz)
{
	uint64_t copy[EXPR_COPY_MAX / sizeof(uint64_t)];
	size_t n = ctx->raw_sz < sizeof(copy) ? ctx->raw_sz : sizeof(copy);
	struct vm vm;
	uint64_t r;

	vm_init(&vm, e, ctx);
	if (ctx->raw) {
		memcpy(copy, ctx->raw, n);
		vm.raw = (uintptr_t)copy;
		vm.raw_end = vm.raw + n;
		vm.writable = true;
	}
	r = vm_exec(&vm, trace);
	if (buf)
		str_out(&vm, r, buf, sz);
	return r;
}

int64_t pp_expr_eval(const struct pp_expr *e, struct pp_expr_ctx *ctx)
{
	struct vm vm;

	if (e->flags & PP_EXPR_USES_ASSIGN)
		return (int64_t)vm_run_on_copy(e, ctx, NULL, NULL, 0);
	vm_init(&vm, e, ctx);
	return (int64_t)vm_exec(&vm, NULL);
}

int64_t pp_expr_eval_trace(const struct pp_expr *e, struct pp_expr_ctx *ctx,
			   struct pp_buf *trace)
{
	struct vm vm;

	if (e->flags & PP_EXPR_USES_ASSIGN)
		return (int64_t)vm_run_on_copy(e, ctx, trace, NULL, 0);
	vm_init(&vm, e, ctx);
	return (int64_t)vm_exec(&vm, trace);
}

double pp_expr_eval_num(const struct pp_expr *e, struct pp_expr_ctx *ctx)
{
	uint64_t v = (uint64_t)pp_expr_eval(e, ctx);

	if (pp_expr_is_double(e->type))
		return dv(v);
	return e->type.uns || e->type.ptr ? (double)v : (double)(int64_t)v;
}

int pp_expr_eval_str(const struct pp_expr *e, struct pp_expr_ctx *ctx, char *buf, size_t sz)
{
	struct vm vm;

	if (!pp_expr_is_str(e->type))
		return PP_ETYPE;
	if (e->flags & PP_EXPR_USES_ASSIGN) {
		vm_run_on_copy(e, ctx, NULL, buf, sz);
		return 0;
	}
	vm_init(&vm, e, ctx);
	str_out(&vm, vm_exec(&vm, NULL), buf, sz);
	return 0;
}
