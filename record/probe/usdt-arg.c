/* SPDX-License-Identifier: MIT */
/*
 * usdt-arg.c - SDT argument specs (AT&T operands) to uprobe fetch arguments.
 *
 *   spec              fetch             type
 *   -4@%edi           %di               s32      a register: the kernel's 64-bit name
 *   1@%ah             %ax               b8@8/64  a high byte: a bitfield of the register
 *   8@-16(%rbp)       -16(%bp)          u64      memory at a register plus displacement
 *   -2@(%rdi)         +0(%di)           s16
 *   4@$5              \5                u32      an immediate
 *   8@cnt+8(%rip)     @+0x4018          u64      memory at a symbol of the file (+8)
 *   %rsi              %si               (none)   no size: the kernel's default type
 * Refused: scaled index ((%rax,%rsi,8)), segment prefixes (%fs:8), the address of a
 * symbol as an immediate ($sym), symbolic displacements on a register (sym(%rbx)).
 * The grammar is checked strictly: whatever is not understood is refused, never passed
 * through to the kernel, since a note is untrusted text.
 * Not here: the notes (usdt.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "record/probe/usdt-arg.h"

struct reg_name {
	const char *gas;	/* without '%' */
	const char *kernel;
	unsigned char bit;	/* 8 for the high bytes %ah .. %dh */
};

/* Every name of an x86 general-purpose register, by the register the kernel reads. */
static const struct reg_name regs[] = {
	{ "rax", "ax", 0 }, { "eax", "ax", 0 }, { "ax", "ax", 0 }, { "al", "ax", 0 },
	{ "ah", "ax", 8 },
	{ "rbx", "bx", 0 }, { "ebx", "bx", 0 }, { "bx", "bx", 0 }, { "bl", "bx", 0 },
	{ "bh", "bx", 8 },
	{ "rcx", "cx", 0 }, { "ecx", "cx", 0 }, { "cx", "cx", 0 }, { "cl", "cx", 0 },
	{ "ch", "cx", 8 },
	{ "rdx", "dx", 0 }, { "edx", "dx", 0 }, { "dx", "dx", 0 }, { "dl", "dx", 0 },
	{ "dh", "dx", 8 },
	{ "rsi", "si", 0 }, { "esi", "si", 0 }, { "si", "si", 0 }, { "sil", "si", 0 },
	{ "rdi", "di", 0 }, { "edi", "di", 0 }, { "di", "di", 0 }, { "dil", "di", 0 },
	{ "rbp", "bp", 0 }, { "ebp", "bp", 0 }, { "bp", "bp", 0 }, { "bpl", "bp", 0 },
	{ "rsp", "sp", 0 }, { "esp", "sp", 0 }, { "sp", "sp", 0 }, { "spl", "sp", 0 },
};

/* %r8 .. %r15 and their %r8d, %r8w, %r8b (%r8l in older gas) forms. */
static bool reg_rn(const char *s, char *out, size_t out_sz)
{
	char *end;
	long n;

	if (s[0] != 'r' || !isdigit((unsigned char)s[1]))
		return false;
	n = strtol(s + 1, &end, 10);
	if (n < 8 || n > 15)
		return false;
	if (*end && (strchr("dwbl", *end) == NULL || end[1]))
		return false;
	snprintf(out, out_sz, "r%ld", n);
	return true;
}

/* @name (without '%') as the kernel's register name; *@bit: 8 for a high byte. */
static bool reg_lookup(const char *name, char *out, size_t out_sz, unsigned *bit)
{
	*bit = 0;
	for (size_t i = 0; i < PP_ARRAY_SIZE(regs); i++) {
		if (!strcmp(regs[i].gas, name)) {
			snprintf(out, out_sz, "%s", regs[i].kernel);
			*bit = regs[i].bit;
			return true;
		}
	}
	return reg_rn(name, out, out_sz);
}

/* A whole signed decimal or 0x-hex number (gas's syntax for displacements). */
static bool parse_num(const char *s, size_t len, long long *v)
{
	char tmp[32], *end;

	if (!len || len >= sizeof(tmp))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (!isdigit((unsigned char)tmp[tmp[0] == '-' || tmp[0] == '+']))
		return false;
	errno = 0;
	*v = strtoll(tmp, &end, 0);
	return !errno && !*end;
}

static bool is_sym_char(int c, bool first)
{
	return isalpha(c) || c == '_' || c == '.' || c == '$' || (!first && isdigit(c));
}

static int unsupported(char *why, size_t why_sz, const char *what, const char *op)
{
	snprintf(why, why_sz, "%s %s", what, op);
	return PP_ENOTSUP;
}

/*
 * "[N+]SYM[+N|-N]" of a PC-relative operand: the symbol's address plus the numbers.
 * Return 0, PP_ENOTSUP (no resolver, unknown symbol, not one symbol) with @why filled.
 */
static int rip_target(const char *disp, size_t len, const struct rec_usdt_argctx *ctx,
		      uint64_t *vaddr, char *why, size_t why_sz)
{
	char sym[256] = "";
	long long sum = 0;
	size_t i = 0;
	int sign = 1;

	if (len && (disp[0] == '-' || disp[0] == '+')) {
		sign = disp[0] == '-' ? -1 : 1;
		i = 1;
	}
	while (i < len) {
		size_t j = i;
		long long n;

		if (is_sym_char((unsigned char)disp[i], true)) {
			while (j < len && is_sym_char((unsigned char)disp[j], false))
				j++;
			if (sym[0] || sign < 0 || j - i >= sizeof(sym)) {
				snprintf(why, why_sz, "PC-relative operand '%.*s' is not SYMBOL+N",
					 (int)len, disp);
				return PP_ENOTSUP;
			}
			memcpy(sym, disp + i, j - i);
			sym[j - i] = '\0';
		} else {
			while (j < len && isalnum((unsigned char)disp[j]))
				j++;
			if (!parse_num(disp + i, j - i, &n)) {
				snprintf(why, why_sz, "PC-relative operand '%.*s' is not SYMBOL+N",
					 (int)len, disp);
				return PP_ENOTSUP;
			}
			sum += sign * n;
		}
		if (j < len && disp[j] != '+' && disp[j] != '-') {
			snprintf(why, why_sz, "PC-relative operand '%.*s' is not SYMBOL+N", (int)len,
				 disp);
			return PP_ENOTSUP;
		}
		sign = j < len && disp[j] == '-' ? -1 : 1;
		i = j + 1;
		if (j + 1 == len) {
			snprintf(why, why_sz, "PC-relative operand '%.*s' ends with an operator",
				 (int)len, disp);
			return PP_ENOTSUP;
		}
	}
	if (!sym[0]) {
		snprintf(why, why_sz, "PC-relative operand '%.*s' names no symbol", (int)len, disp);
		return PP_ENOTSUP;
	}
	if (!ctx || !ctx->sym || ctx->sym(ctx->sym_arg, sym, vaddr)) {
		snprintf(why, why_sz, "symbol '%s' is not in the binary's symbol tables", sym);
		return PP_ENOTSUP;
	}
	*vaddr += (uint64_t)sum;
	return 0;
}

static int mem_operand(const char *op, const struct rec_usdt_argctx *ctx, struct pp_buf *fetch,
		       char *why, size_t why_sz)
{
	const char *lp = strchr(op, '('), *rp = strrchr(op, ')');
	size_t dlen, rlen;
	char reg[16], name[16];
	unsigned bit;
	long long disp = 0;

	if (!lp || !rp || rp < lp || rp[1] || lp[1] != '%')
		return PP_ESYNTAX;
	dlen = (size_t)(lp - op);
	rlen = (size_t)(rp - lp - 2);
	if (!rlen || rlen >= sizeof(reg))
		return PP_ESYNTAX;
	memcpy(reg, lp + 2, rlen);
	reg[rlen] = '\0';
	if (!strcmp(reg, "rip") || !strcmp(reg, "eip")) {
		uint64_t vaddr, base;
		int rc = rip_target(op, dlen, ctx, &vaddr, why, why_sz);

		if (rc)
			return rc;
		/* the kernel adds the probe's runtime address minus its file offset */
		base = ctx->pc - ctx->off;
		if (vaddr < base) {
			snprintf(why, why_sz, "'%s' lies before the probe's mapping", op);
			return PP_ENOTSUP;
		}
		pp_buf_addf(fetch, "@+0x%llx", (unsigned long long)(vaddr - base));
		return 0;
	}
	if (!reg_lookup(reg, name, sizeof(name), &bit) || bit)
		return unsupported(why, why_sz, "base register of", op);
	if (dlen && !parse_num(op, dlen, &disp))
		return unsupported(why, why_sz, "symbolic displacement in", op);
	pp_buf_addf(fetch, "%+lld(%%%s)", disp, name);
	return 0;
}

int rec_usdt_arg_fetch(const char *spec, const struct rec_usdt_argctx *ctx, struct pp_buf *fetch,
		       char *type, size_t type_sz, char *why, size_t why_sz)
{
	const char *op = spec, *at = strchr(spec, '@');
	long long size = 0;
	size_t mark = fetch->len;
	int rc;

	*type = '\0';
	snprintf(why, why_sz, "'%s' is not SIZE@OPERAND", spec);
	if (at) {
		if (!parse_num(spec, (size_t)(at - spec), &size) ||
		    (llabs(size) != 1 && llabs(size) != 2 && llabs(size) != 4 && llabs(size) != 8))
			return PP_ESYNTAX;
		op = at + 1;
		snprintf(type, type_sz, "%c%lld", size < 0 ? 's' : 'u', llabs(size) * 8);
	}
	if (!*op)
		return PP_ESYNTAX;
	for (const char *p = op; *p; p++)
		if (!isgraph((unsigned char)*p))
			return PP_ESYNTAX;
	if (strchr(op, ','))
		return unsupported(why, why_sz, "scaled index in", op);
	if (op[0] == '$') {
		long long v;

		if (!parse_num(op + 1, strlen(op + 1), &v))
			return unsupported(why, why_sz, "a symbol's address as the immediate", op);
		pp_buf_addf(fetch, "\\%lld", v);
		return 0;
	}
	if (op[0] == '%') {
		char name[16];
		unsigned bit;

		if (strchr(op, ':'))
			return unsupported(why, why_sz, "segment prefix in", op);
		if (!reg_lookup(op + 1, name, sizeof(name), &bit))
			return unsupported(why, why_sz, "register", op);
		pp_buf_addf(fetch, "%%%s", name);
		if (bit)	/* %ah: bits 8..15 of %ax, unsigned whatever the size says */
			snprintf(type, type_sz, "b8@%u/64", bit);
		return 0;
	}
	if (strchr(op, ':'))
		return unsupported(why, why_sz, "segment prefix in", op);
	rc = mem_operand(op, ctx, fetch, why, why_sz);
	if (rc) {
		fetch->len = mark;
		if (fetch->data)
			fetch->data[mark] = '\0';
	}
	return rc;
}
