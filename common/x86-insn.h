/* SPDX-License-Identifier: MIT */
/*
 * x86-insn.h - a small x86-64 decoder for the instructions that write memory
 * in ways whose written value can be worked out afterwards.
 *
 * The breakpoint analyzer needs, for the instruction that set off a data
 * write breakpoint, what was written: a hardware data breakpoint traps after
 * the access, so the sample's registers are those after the instruction.
 * This decoder knows only the memory-destination forms of
 *   MOV (88 89 C6/0 C7/0 A2 A3), CMPXCHG (0F B0 0F B1),
 *   ADD OR AND SUB XOR (00 01 08 09 20 21 28 29 30 31, 80 81 83 /0 /1 /4 /5 /6),
 *   INC DEC (FE FF /0 /1), NOT NEG (F6 F7 /2 /3),
 *   ROL ROR SHL SHR SAR (C0 C1 D0 D1 D2 D3 /0 /1 /4 /5 /6 /7),
 *   BTS BTR BTC (0F AB 0F B3 0F BB, 0F BA /5 /6 /7),
 * in 64-bit mode, with the legacy prefixes (lock, rep, 66, 67, segments)
 * and REX.  Everything else - XCHG and XADD among them, whose source
 * register holds the old memory value afterwards - is "not decoded".
 * Register numbers are the encoding's (0 AX, 1 CX, 2 DX, 3 BX, 4 SP, 5 BP,
 * 6 SI, 7 DI, 8..15 R8..R15); pp_x86_perf_reg() maps them to perf_regs.
 * Pure functions over bytes: no I/O, no allocation.
 */
#ifndef PP_COMMON_X86_INSN_H
#define PP_COMMON_X86_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_X86_MAX_LEN 15		/* the architectural limit of one instruction */
#define PP_X86_REG_NONE (-1)
#define PP_X86_REG_RIP 16		/* mem.base of a RIP-relative operand */

enum pp_x86_op {
	PP_X86_MOV = 1,
	PP_X86_CMPXCHG,
	PP_X86_ADD,
	PP_X86_OR,
	PP_X86_AND,
	PP_X86_SUB,
	PP_X86_XOR,
	PP_X86_INC,
	PP_X86_DEC,
	PP_X86_NOT,
	PP_X86_NEG,
	PP_X86_ROL,
	PP_X86_ROR,
	PP_X86_SHL,
	PP_X86_SHR,
	PP_X86_SAR,
	PP_X86_BTS,
	PP_X86_BTR,
	PP_X86_BTC,
};

/* Where the source operand is. */
enum pp_x86_src {
	PP_X86_SRC_NONE,		/* INC DEC NOT NEG */
	PP_X86_SRC_REG,			/* src_reg (AL/rAX for MOV moffs) */
	PP_X86_SRC_IMM,			/* imm; shifts by 1 have imm 1 */
	PP_X86_SRC_CL,			/* a shift or rotate count in CL */
};

/* The memory destination: seg:[base + index * scale + disp], or the absolute disp. */
struct pp_x86_mem {
	int base;			/* 0..15, PP_X86_REG_RIP, or PP_X86_REG_NONE */
	int index;			/* 0..15 or PP_X86_REG_NONE */
	unsigned scale;			/* 1 2 4 8 */
	int64_t disp;			/* sign-extended; the address itself for MOV moffs */
	uint8_t seg;			/* 0, or the FS (0x64) / GS (0x65) prefix byte */
	bool addr32;			/* 0x67: 32-bit address arithmetic */
};

struct pp_x86_insn {
	uint8_t len;			/* bytes, prefixes included */
	enum pp_x86_op op;
	uint8_t opsz;			/* operand size: 1 2 4 8 */
	bool lock;
	struct pp_x86_mem mem;
	enum pp_x86_src src;
	int src_reg;			/* PP_X86_SRC_REG: 0..15 */
	bool src_high8;			/* ... AH CH DH BH: bits 8..15 of src_reg 0..3 */
	uint64_t imm;			/* PP_X86_SRC_IMM: sign-extended to 64 bits */
};

/**
 * pp_x86_decode() - decode one instruction at @buf
 * @buf: the bytes
 * @len: how many there are (at most PP_X86_MAX_LEN are looked at)
 * @out: receives the instruction
 * Return: true when @buf starts with a memory-writing instruction of the
 * classes above that fits in @len bytes; false for anything else.
 */
bool pp_x86_decode(const uint8_t *buf, size_t len, struct pp_x86_insn *out);

/**
 * pp_x86_decode_ending() - the instructions that end exactly at the end of @buf
 * @buf: the bytes just before an address (a trap's IP)
 * @len: how many
 * @out: receives up to @max instructions, longest first
 * @max: its size
 *
 * The instruction that trapped is one of them, unless it is of no class
 * above; a shorter one can be a suffix of it (89 07 inside 48 89 07), a
 * longer one can take bytes of the instruction before as prefixes.
 * Return: how many were found.
 */
size_t pp_x86_decode_ending(const uint8_t *buf, size_t len, struct pp_x86_insn *out, size_t max);

/** pp_x86_perf_reg() - the perf_regs (x86_64 sample_regs) bit of encoding register @reg, or -1. */
int pp_x86_perf_reg(int reg);

/**
 * pp_x86_is_rmw() - whether the written value depends on the old one
 * (everything but MOV and CMPXCHG)
 */
bool pp_x86_is_rmw(const struct pp_x86_insn *in);

/** pp_x86_sets_zf() - whether ZF afterwards tells if the written value is 0 (@count: shifts). */
bool pp_x86_sets_zf(const struct pp_x86_insn *in, uint64_t count);

/**
 * pp_x86_apply() - the value a read-modify-write instruction writes
 * @in: the instruction
 * @old: the old memory value (low in->opsz bytes used)
 * @src: the source value: the register, the immediate or CL (unused for INC DEC NOT NEG)
 * Return: the new value, masked to in->opsz bytes; for MOV and CMPXCHG @src masked.
 */
uint64_t pp_x86_apply(const struct pp_x86_insn *in, uint64_t old, uint64_t src);

/**
 * pp_x86_bt_disp() - BTS BTR BTC with a register bit offset @bitoff: the
 * byte displacement from the operand's address to the word that is written
 * (the offset is signed and may reach beyond the operand; 0 for an
 * immediate offset, which is taken modulo the operand's bits)
 */
int64_t pp_x86_bt_disp(const struct pp_x86_insn *in, uint64_t bitoff);

/** pp_x86_op_name() - "mov", "cmpxchg", "add" ... */
const char *pp_x86_op_name(enum pp_x86_op op);

/** pp_x86_reg_name() - "%rax", "%r9d", "%si", "%ah" ... for @reg at @size bytes. */
const char *pp_x86_reg_name(int reg, unsigned size, bool high8);

/**
 * pp_x86_insn_str() - AT&T-style mnemonic and source: "lock addq $0x1", "movl %eax",
 * "incq", "sarq %cl", "btsq %rdx" (the destination is left out)
 * Return: @buf.
 */
char *pp_x86_insn_str(const struct pp_x86_insn *in, char *buf, size_t sz);

#endif
