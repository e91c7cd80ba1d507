/* SPDX-License-Identifier: MIT */
/*
 * x86-insn.c - decoding the memory-writing x86-64 instructions of x86-insn.h.
 *
 * The decoder walks prefixes, REX, the opcode (one byte, or 0F and one),
 * ModRM, SIB, displacement and immediate, and refuses as soon as the
 * instruction leaves the supported set, so that a wrong guess about where
 * an instruction starts is most often refused rather than misread.  Facts
 * from the Intel SDM vol. 2: a REX prefix counts only right before the
 * opcode (the CPU ignores one followed by another prefix: no compiler emits
 * that, and such a byte is far more likely the end of the instruction
 * before, so it is refused here); REX.W wins over 0x66; with
 * any REX, byte registers 4..7 are SPL BPL SIL DIL instead of AH CH DH BH;
 * in 64-bit mode the ES CS SS DS overrides are ignored, FS and GS are not;
 * ModRM rm=101 with mod=00 is RIP-relative, SIB base=101 with mod=00 has no
 * base, SIB index=100 (without REX.X) no index; Iz is 4 bytes sign-extended
 * for 64-bit operands, 2 for 16-bit ones; MOV moffs has an 8-byte address
 * (4 with 0x67).
 */
#include <stdio.h>
#include <string.h>

#include "common/x86-insn.h"

/* The opcode's shape: what follows the opcode byte(s). */
enum shape {
	SH_EG,		/* ModRM, source register in reg (Eb,Gb / Ev,Gv) */
	SH_E_IB,	/* ModRM /digit, imm8 */
	SH_E_IZ,	/* ModRM /digit, imm16/32 */
	SH_E,		/* ModRM /digit, no immediate */
	SH_MOFFS,	/* absolute address, source AL/rAX */
};

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3: case 0x66: case 0x67:
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
		return true;
	default:
		return false;
	}
}

struct cursor {
	const uint8_t *p, *end;
};

static bool take(struct cursor *c, size_t n, uint64_t *v, bool sign)
{
	uint64_t x = 0;

	if ((size_t)(c->end - c->p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	if (sign && n < 8 && (x >> (8 * n - 1)) & 1)
		x |= ~0ull << (8 * n);
	*v = x;
	return true;
}

/* The ModRM operand, which must be memory.  @rex: the REX byte or 0. */
static bool modrm_mem(struct cursor *c, uint8_t modrm, uint8_t rex, struct pp_x86_mem *m)
{
	unsigned mod = modrm >> 6, rm = modrm & 7;
	uint64_t d = 0;

	if (mod == 3)
		return false;		/* a register: nothing written to memory */
	m->index = PP_X86_REG_NONE;
	m->scale = 1;
	if (rm == 4) {
		uint64_t sib;

		if (!take(c, 1, &sib, false))
			return false;
		unsigned idx = ((sib >> 3) & 7) | ((rex & 2) ? 8 : 0), base = sib & 7;

		m->scale = 1u << (sib >> 6);
		if (idx != 4)
			m->index = (int)idx;
		if (base == 5 && mod == 0) {
			m->base = PP_X86_REG_NONE;
			if (!take(c, 4, &d, true))
				return false;
		} else {
			m->base = (int)(base | ((rex & 1) ? 8 : 0));
		}
	} else if (rm == 5 && mod == 0) {
		m->base = PP_X86_REG_RIP;
		if (!take(c, 4, &d, true))
			return false;
	} else {
		m->base = (int)(rm | ((rex & 1) ? 8 : 0));
	}
	if (mod == 1 && !take(c, 1, &d, true))
		return false;
	if (mod == 2 && !take(c, 4, &d, true))
		return false;
	m->disp = (int64_t)d;
	return true;
}

/* The operation of a one-byte opcode (@op) with ModRM reg field @digit; 0 if unsupported. */
static enum pp_x86_op op_of(unsigned op, unsigned digit, enum shape *sh, bool *byte)
{
	static const enum pp_x86_op grp1[8] = {
		PP_X86_ADD, PP_X86_OR, 0, 0, PP_X86_AND, PP_X86_SUB, PP_X86_XOR, 0,
	};
	static const enum pp_x86_op grp2[8] = {
		PP_X86_ROL, PP_X86_ROR, 0, 0, PP_X86_SHL, PP_X86_SHR, PP_X86_SHL, PP_X86_SAR,
	};

	*byte = !(op & 1);
	switch (op) {
	case 0x00: case 0x01: *sh = SH_EG; return PP_X86_ADD;
	case 0x08: case 0x09: *sh = SH_EG; return PP_X86_OR;
	case 0x20: case 0x21: *sh = SH_EG; return PP_X86_AND;
	case 0x28: case 0x29: *sh = SH_EG; return PP_X86_SUB;
	case 0x30: case 0x31: *sh = SH_EG; return PP_X86_XOR;
	case 0x88: case 0x89: *sh = SH_EG; return PP_X86_MOV;
	case 0x80: *sh = SH_E_IB; return grp1[digit];
	case 0x81: *sh = SH_E_IZ; return grp1[digit];
	case 0x83: *sh = SH_E_IB; *byte = false; return grp1[digit];
	case 0xa2: case 0xa3: *sh = SH_MOFFS; return PP_X86_MOV;
	case 0xc6: *sh = SH_E_IB; return digit == 0 ? PP_X86_MOV : 0;
	case 0xc7: *sh = SH_E_IZ; return digit == 0 ? PP_X86_MOV : 0;
	case 0xc0: case 0xc1: *sh = SH_E_IB; return grp2[digit];
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: *sh = SH_E; return grp2[digit];
	case 0xf6: case 0xf7:
		*sh = SH_E;
		return digit == 2 ? PP_X86_NOT : digit == 3 ? PP_X86_NEG : 0;
	case 0xfe: case 0xff:
		*sh = SH_E;
		return digit == 0 ? PP_X86_INC : digit == 1 ? PP_X86_DEC : 0;
	default:
		return 0;
	}
}

/* The same for 0F-prefixed opcodes. */
static enum pp_x86_op op_of_0f(unsigned op, unsigned digit, enum shape *sh, bool *byte)
{
	*byte = false;
	switch (op) {
	case 0xb0: *byte = true; *sh = SH_EG; return PP_X86_CMPXCHG;
	case 0xb1: *sh = SH_EG; return PP_X86_CMPXCHG;
	case 0xab: *sh = SH_EG; return PP_X86_BTS;
	case 0xb3: *sh = SH_EG; return PP_X86_BTR;
	case 0xbb: *sh = SH_EG; return PP_X86_BTC;
	case 0xba:
		*sh = SH_E_IB;
		return digit == 5 ? PP_X86_BTS : digit == 6 ? PP_X86_BTR :
		       digit == 7 ? PP_X86_BTC : 0;
	default:
		return 0;
	}
}

bool pp_x86_decode(const uint8_t *buf, size_t len, struct pp_x86_insn *out)
{
	struct cursor c = { buf, buf + (len > PP_X86_MAX_LEN ? PP_X86_MAX_LEN : len) };
	bool opsz16 = false, byte, twobyte = false;
	uint8_t rex = 0, modrm = 0;
	unsigned opcode;
	enum pp_x86_op op;
	enum shape sh;
	uint64_t v;

	memset(out, 0, sizeof(*out));
	for (;;) {
		if (!take(&c, 1, &v, false))
			return false;
		if (rex && (is_legacy_prefix((uint8_t)v) || (v & 0xf0) == 0x40))
			return false;	/* a REX not right before the opcode: see above */
		switch (v) {
		case 0xf0: out->lock = true; continue;
		case 0xf2: case 0xf3: continue;		/* rep, xacquire/xrelease */
		case 0x66: opsz16 = true; continue;
		case 0x67: out->mem.addr32 = true; continue;
		case 0x26: case 0x2e: case 0x36: case 0x3e: continue;
		case 0x64: case 0x65: out->mem.seg = (uint8_t)v; continue;
		default:
			break;
		}
		if ((v & 0xf0) == 0x40) {
			rex = (uint8_t)v;
			continue;
		}
		break;
	}
	opcode = (unsigned)v;
	if (opcode == 0x0f) {
		if (!take(&c, 1, &v, false))
			return false;
		opcode = (unsigned)v;
		twobyte = true;
	}
	if (!twobyte && (opcode == 0xa2 || opcode == 0xa3)) {
		op = op_of(opcode, 0, &sh, &byte);
	} else {
		uint64_t m;

		if (!take(&c, 1, &m, false))
			return false;
		modrm = (uint8_t)m;
		op = twobyte ? op_of_0f(opcode, (modrm >> 3) & 7, &sh, &byte)
			     : op_of(opcode, (modrm >> 3) & 7, &sh, &byte);
	}
	if (!op)
		return false;
	out->op = op;
	out->opsz = byte ? 1 : (rex & 8) ? 8 : opsz16 ? 2 : 4;

	if (sh == SH_MOFFS) {
		if (!take(&c, out->mem.addr32 ? 4 : 8, &v, false))
			return false;
		out->mem.base = PP_X86_REG_NONE;
		out->mem.index = PP_X86_REG_NONE;
		out->mem.scale = 1;
		out->mem.disp = (int64_t)v;
		out->src = PP_X86_SRC_REG;
		out->src_reg = 0;
	} else {
		if (!modrm_mem(&c, modrm, rex, &out->mem))
			return false;
		switch (sh) {
		case SH_EG:
			out->src = PP_X86_SRC_REG;
			out->src_reg = ((modrm >> 3) & 7) | ((rex & 4) ? 8 : 0);
			out->src_high8 = byte && !rex && out->src_reg >= 4;
			if (out->src_high8)
				out->src_reg -= 4;
			break;
		case SH_E_IB:
			if (!take(&c, 1, &v, true))
				return false;
			out->src = PP_X86_SRC_IMM;
			out->imm = v;
			break;
		case SH_E_IZ:
			if (!take(&c, out->opsz == 2 ? 2 : 4, &v, true))
				return false;
			out->src = PP_X86_SRC_IMM;
			out->imm = v;
			break;
		default:		/* SH_E */
			if (opcode == 0xd0 || opcode == 0xd1) {
				out->src = PP_X86_SRC_IMM;
				out->imm = 1;
			} else if (opcode == 0xd2 || opcode == 0xd3) {
				out->src = PP_X86_SRC_CL;
			}
			break;
		}
	}
	out->len = (uint8_t)(c.p - buf);
	return true;
}

size_t pp_x86_decode_ending(const uint8_t *buf, size_t len, struct pp_x86_insn *out, size_t max)
{
	size_t n = 0, longest = len < PP_X86_MAX_LEN ? len : PP_X86_MAX_LEN;

	for (size_t sz = longest; sz >= 1 && n < max; sz--) {
		struct pp_x86_insn in;

		if (pp_x86_decode(buf + len - sz, sz, &in) && in.len == sz)
			out[n++] = in;
	}
	return n;
}

int pp_x86_perf_reg(int reg)
{
	/* perf_regs x86_64: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
	static const int map[8] = { 0, 2, 3, 1, 7, 6, 4, 5 };

	if (reg >= 0 && reg < 8)
		return map[reg];
	if (reg >= 8 && reg < 16)
		return 16 + reg - 8;
	if (reg == PP_X86_REG_RIP)
		return 8;
	return -1;
}

bool pp_x86_is_rmw(const struct pp_x86_insn *in)
{
	return in->op != PP_X86_MOV && in->op != PP_X86_CMPXCHG;
}

static unsigned shift_count(const struct pp_x86_insn *in, uint64_t count)
{
	return (unsigned)(count & (in->opsz == 8 ? 0x3f : 0x1f));
}

bool pp_x86_sets_zf(const struct pp_x86_insn *in, uint64_t count)
{
	switch (in->op) {
	case PP_X86_ADD: case PP_X86_OR: case PP_X86_AND: case PP_X86_SUB: case PP_X86_XOR:
	case PP_X86_INC: case PP_X86_DEC: case PP_X86_NEG:
		return true;
	case PP_X86_SHL: case PP_X86_SHR: case PP_X86_SAR:
		return shift_count(in, count) != 0;	/* a count of 0 leaves the flags */
	default:
		return false;		/* MOV, NOT, rotates, BTx: ZF is not about the result */
	}
}

static uint64_t size_mask(unsigned opsz)
{
	return opsz >= 8 ? ~0ull : (1ull << (8 * opsz)) - 1;
}

uint64_t pp_x86_apply(const struct pp_x86_insn *in, uint64_t old, uint64_t src)
{
	unsigned bits = 8u * in->opsz, n;
	uint64_t mask = size_mask(in->opsz), v = old & mask, r;

	switch (in->op) {
	case PP_X86_ADD: r = v + src; break;
	case PP_X86_OR: r = v | src; break;
	case PP_X86_AND: r = v & src; break;
	case PP_X86_SUB: r = v - src; break;
	case PP_X86_XOR: r = v ^ src; break;
	case PP_X86_INC: r = v + 1; break;
	case PP_X86_DEC: r = v - 1; break;
	case PP_X86_NOT: r = ~v; break;
	case PP_X86_NEG: r = 0 - v; break;
	case PP_X86_ROL:
	case PP_X86_ROR:
		n = shift_count(in, src) % bits;
		if (!n)
			r = v;
		else if (in->op == PP_X86_ROL)
			r = (v << n) | (v >> (bits - n));
		else
			r = (v >> n) | (v << (bits - n));
		break;
	case PP_X86_SHL:
		n = shift_count(in, src);
		r = n >= bits ? 0 : v << n;
		break;
	case PP_X86_SHR:
		n = shift_count(in, src);
		r = n >= bits ? 0 : v >> n;
		break;
	case PP_X86_SAR: {
		/* sign-extend to 64 bits, then an arithmetic shift (n <= 63) */
		int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);

		n = shift_count(in, src);
		r = (uint64_t)(sv >> n);
		break;
	}
	case PP_X86_BTS:
	case PP_X86_BTR:
	case PP_X86_BTC: {
		uint64_t bit = 1ull << (src & (bits - 1));

		r = in->op == PP_X86_BTS ? v | bit : in->op == PP_X86_BTR ? v & ~bit : v ^ bit;
		break;
	}
	default:		/* MOV, CMPXCHG: the source is what is written */
		r = src;
		break;
	}
	return r & mask;
}

int64_t pp_x86_bt_disp(const struct pp_x86_insn *in, uint64_t bitoff)
{
	unsigned bits = 8u * in->opsz, shift = in->opsz == 2 ? 4 : in->opsz == 4 ? 5 : 6;
	int64_t off;

	if (in->src != PP_X86_SRC_REG)
		return 0;
	off = (int64_t)(bitoff << (64 - bits)) >> (64 - bits);	/* the register is signed */
	return (off >> shift) * (int64_t)in->opsz;
}

const char *pp_x86_op_name(enum pp_x86_op op)
{
	static const char *const names[] = {
		[PP_X86_MOV] = "mov", [PP_X86_CMPXCHG] = "cmpxchg", [PP_X86_ADD] = "add",
		[PP_X86_OR] = "or", [PP_X86_AND] = "and", [PP_X86_SUB] = "sub",
		[PP_X86_XOR] = "xor", [PP_X86_INC] = "inc", [PP_X86_DEC] = "dec",
		[PP_X86_NOT] = "not", [PP_X86_NEG] = "neg", [PP_X86_ROL] = "rol",
		[PP_X86_ROR] = "ror", [PP_X86_SHL] = "shl", [PP_X86_SHR] = "shr",
		[PP_X86_SAR] = "sar", [PP_X86_BTS] = "bts", [PP_X86_BTR] = "btr",
		[PP_X86_BTC] = "btc",
	};

	if ((unsigned)op < sizeof(names) / sizeof(names[0]) && names[op])
		return names[op];
	return "?";
}

const char *pp_x86_reg_name(int reg, unsigned size, bool high8)
{
	static const char *const r64[16] = {
		"%rax", "%rcx", "%rdx", "%rbx", "%rsp", "%rbp", "%rsi", "%rdi",
		"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
	};
	static const char *const r32[16] = {
		"%eax", "%ecx", "%edx", "%ebx", "%esp", "%ebp", "%esi", "%edi",
		"%r8d", "%r9d", "%r10d", "%r11d", "%r12d", "%r13d", "%r14d", "%r15d",
	};
	static const char *const r16[16] = {
		"%ax", "%cx", "%dx", "%bx", "%sp", "%bp", "%si", "%di",
		"%r8w", "%r9w", "%r10w", "%r11w", "%r12w", "%r13w", "%r14w", "%r15w",
	};
	static const char *const r8[16] = {
		"%al", "%cl", "%dl", "%bl", "%spl", "%bpl", "%sil", "%dil",
		"%r8b", "%r9b", "%r10b", "%r11b", "%r12b", "%r13b", "%r14b", "%r15b",
	};
	static const char *const hi8[4] = { "%ah", "%ch", "%dh", "%bh" };

	if (reg < 0 || reg > 15)
		return "?";
	if (high8)
		return reg < 4 ? hi8[reg] : "?";
	return size == 8 ? r64[reg] : size == 4 ? r32[reg] : size == 2 ? r16[reg] : r8[reg];
}

char *pp_x86_insn_str(const struct pp_x86_insn *in, char *buf, size_t sz)
{
	static const char suffix[9] = { [1] = 'b', [2] = 'w', [4] = 'l', [8] = 'q' };
	const char *lock = in->lock ? "lock " : "";
	const char *name = pp_x86_op_name(in->op);
	char sfx = in->opsz <= 8 ? suffix[in->opsz] : '?';
	/* shift counts and BTx bit offsets are one byte; other immediates have the operand's size */
	uint64_t imask = in->op >= PP_X86_ROL ? 0xff : size_mask(in->opsz);

	switch (in->src) {
	case PP_X86_SRC_REG:
		snprintf(buf, sz, "%s%s%c %s", lock, name, sfx,
			 pp_x86_reg_name(in->src_reg, in->opsz, in->src_high8));
		break;
	case PP_X86_SRC_IMM:
		snprintf(buf, sz, "%s%s%c $0x%llx", lock, name, sfx,
			 (unsigned long long)(in->imm & imask));
		break;
	case PP_X86_SRC_CL:
		snprintf(buf, sz, "%s%s%c %%cl", lock, name, sfx);
		break;
	default:
		snprintf(buf, sz, "%s%s%c", lock, name, sfx);
		break;
	}
	return buf;
}
