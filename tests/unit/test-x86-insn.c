/* SPDX-License-Identifier: MIT */
/*
 * test-x86-insn.c - the x86-64 decoder of the breakpoint analyzer on real
 * encodings: every byte string below was assembled with GNU as and read back
 * with objdump -d (the instruction is in the comment), and is kept here as
 * bytes so that the test needs no assembler.
 */
#include <string.h>

#include "common/log.h"
#include "common/x86-insn.h"
#include "tests/unit/unit.h"

#define NONE PP_X86_REG_NONE
#define RIP PP_X86_REG_RIP
#define R(...) { __VA_ARGS__ }

struct good {
	const char *asm_;
	uint8_t bytes[PP_X86_MAX_LEN];
	uint8_t len;
	enum pp_x86_op op;
	uint8_t opsz;
	bool lock;
	enum pp_x86_src src;
	int src_reg;
	bool high8;
	uint64_t imm;
	int base, index;
	unsigned scale;
	int64_t disp;
	uint8_t seg;
};

static const struct good goods[] = {
	{ "mov %rax,(%rdi)", R(0x48, 0x89, 0x07), 3, PP_X86_MOV, 8, false,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "mov %eax,0x10(%rdi)", R(0x89, 0x47, 0x10), 3, PP_X86_MOV, 4, false,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0x10, 0 },
	{ "mov %ax,-0x8(%rbp,%rcx,4)", R(0x66, 0x89, 0x44, 0x8d, 0xf8), 5, PP_X86_MOV, 2, false,
	  PP_X86_SRC_REG, 0, false, 0, 5, 1, 4, -8, 0 },
	{ "mov %al,(%rsi)", R(0x88, 0x06), 2, PP_X86_MOV, 1, false,
	  PP_X86_SRC_REG, 0, false, 0, 6, NONE, 1, 0, 0 },
	{ "mov %ah,(%rsi)", R(0x88, 0x26), 2, PP_X86_MOV, 1, false,
	  PP_X86_SRC_REG, 0, true, 0, 6, NONE, 1, 0, 0 },
	{ "mov %sil,(%rdx)", R(0x40, 0x88, 0x32), 3, PP_X86_MOV, 1, false,
	  PP_X86_SRC_REG, 6, false, 0, 2, NONE, 1, 0, 0 },
	{ "mov %r9,0x12345678(%r12)", R(0x4d, 0x89, 0x8c, 0x24, 0x78, 0x56, 0x34, 0x12), 8,
	  PP_X86_MOV, 8, false, PP_X86_SRC_REG, 9, false, 0, 12, NONE, 1, 0x12345678, 0 },
	{ "mov %r13d,0x0(%r13)", R(0x45, 0x89, 0x6d, 0x00), 4, PP_X86_MOV, 4, false,
	  PP_X86_SRC_REG, 13, false, 0, 13, NONE, 1, 0, 0 },
	{ "mov %rbx,0x100(%rip)", R(0x48, 0x89, 0x1d, 0x00, 0x01, 0x00, 0x00), 7, PP_X86_MOV, 8,
	  false, PP_X86_SRC_REG, 3, false, 0, RIP, NONE, 1, 0x100, 0 },
	{ "movq $0xffffffffffffffff,(%rdi)", R(0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0xff), 7,
	  PP_X86_MOV, 8, false, PP_X86_SRC_IMM, 0, false, ~0ull, 7, NONE, 1, 0, 0 },
	{ "movq $0x7fffffff,(%rdi)", R(0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0x7f), 7,
	  PP_X86_MOV, 8, false, PP_X86_SRC_IMM, 0, false, 0x7fffffff, 7, NONE, 1, 0, 0 },
	{ "movl $0x12345678,0x8(%rsp)", R(0xc7, 0x44, 0x24, 0x08, 0x78, 0x56, 0x34, 0x12), 8,
	  PP_X86_MOV, 4, false, PP_X86_SRC_IMM, 0, false, 0x12345678, 4, NONE, 1, 8, 0 },
	{ "movw $0x1234,(%rax)", R(0x66, 0xc7, 0x00, 0x34, 0x12), 5, PP_X86_MOV, 2, false,
	  PP_X86_SRC_IMM, 0, false, 0x1234, 0, NONE, 1, 0, 0 },
	{ "movb $0x7f,(%r8)", R(0x41, 0xc6, 0x00, 0x7f), 4, PP_X86_MOV, 1, false,
	  PP_X86_SRC_IMM, 0, false, 0x7f, 8, NONE, 1, 0, 0 },
	{ "movb $0x1,0x8(%rdi)", R(0xc6, 0x47, 0x08, 0x01), 4, PP_X86_MOV, 1, false,
	  PP_X86_SRC_IMM, 0, false, 1, 7, NONE, 1, 8, 0 },
	{ "movabs %rax,0xffffffff82000000",
	  R(0x48, 0xa3, 0x00, 0x00, 0x00, 0x82, 0xff, 0xff, 0xff, 0xff), 10, PP_X86_MOV, 8, false,
	  PP_X86_SRC_REG, 0, false, 0, NONE, NONE, 1, (int64_t)0xffffffff82000000ull, 0 },
	{ "movabs %al,0x1122334455667788",
	  R(0xa2, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), 9, PP_X86_MOV, 1, false,
	  PP_X86_SRC_REG, 0, false, 0, NONE, NONE, 1, 0x1122334455667788ll, 0 },
	{ "mov %rcx,%gs:0x1234", R(0x65, 0x48, 0x89, 0x0c, 0x25, 0x34, 0x12, 0x00, 0x00), 9,
	  PP_X86_MOV, 8, false, PP_X86_SRC_REG, 1, false, 0, NONE, NONE, 1, 0x1234, 0x65 },
	{ "mov %rdx,(%rax,%r11,8)", R(0x4a, 0x89, 0x14, 0xd8), 4, PP_X86_MOV, 8, false,
	  PP_X86_SRC_REG, 2, false, 0, 0, 11, 8, 0, 0 },
	{ "mov %r10,0x0(,%rcx,8)", R(0x4c, 0x89, 0x14, 0xcd, 0x00, 0x00, 0x00, 0x00), 8,
	  PP_X86_MOV, 8, false, PP_X86_SRC_REG, 10, false, 0, NONE, 1, 8, 0, 0 },
	{ "mov %r8b,(%rdi)", R(0x44, 0x88, 0x07), 3, PP_X86_MOV, 1, false,
	  PP_X86_SRC_REG, 8, false, 0, 7, NONE, 1, 0, 0 },
	{ "mov %eax,%fs:0x10", R(0x64, 0x89, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00), 8, PP_X86_MOV, 4,
	  false, PP_X86_SRC_REG, 0, false, 0, NONE, NONE, 1, 0x10, 0x64 },
	{ "data16 mov %eax,(%rdi) = mov %ax,(%rdi)", R(0x66, 0x89, 0x07), 3, PP_X86_MOV, 2, false,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "es mov %ax,(%rdi)", R(0x26, 0x66, 0x89, 0x07), 4, PP_X86_MOV, 2, false,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock cmpxchg %rdx,(%rdi)", R(0xf0, 0x48, 0x0f, 0xb1, 0x17), 5, PP_X86_CMPXCHG, 8, true,
	  PP_X86_SRC_REG, 2, false, 0, 7, NONE, 1, 0, 0 },
	{ "cmpxchg %ecx,0x4(%rbx)", R(0x0f, 0xb1, 0x4b, 0x04), 4, PP_X86_CMPXCHG, 4, false,
	  PP_X86_SRC_REG, 1, false, 0, 3, NONE, 1, 4, 0 },
	{ "lock cmpxchg %cl,(%rdi)", R(0xf0, 0x0f, 0xb0, 0x0f), 4, PP_X86_CMPXCHG, 1, true,
	  PP_X86_SRC_REG, 1, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock addq $0x1,(%rdi)", R(0xf0, 0x48, 0x83, 0x07, 0x01), 5, PP_X86_ADD, 8, true,
	  PP_X86_SRC_IMM, 0, false, 1, 7, NONE, 1, 0, 0 },
	{ "addl $0x100,(%rdi)", R(0x81, 0x07, 0x00, 0x01, 0x00, 0x00), 6, PP_X86_ADD, 4, false,
	  PP_X86_SRC_IMM, 0, false, 0x100, 7, NONE, 1, 0, 0 },
	{ "add %rax,(%rdi)", R(0x48, 0x01, 0x07), 3, PP_X86_ADD, 8, false,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "sub %ecx,(%rsi)", R(0x29, 0x0e), 2, PP_X86_SUB, 4, false,
	  PP_X86_SRC_REG, 1, false, 0, 6, NONE, 1, 0, 0 },
	{ "subq $0xffffffffffffff80,(%rdi)", R(0x48, 0x83, 0x2f, 0x80), 4, PP_X86_SUB, 8, false,
	  PP_X86_SRC_IMM, 0, false, (uint64_t)-0x80, 7, NONE, 1, 0, 0 },
	{ "andq $0xfffffffffffffff0,(%rdi)", R(0x48, 0x83, 0x27, 0xf0), 4, PP_X86_AND, 8, false,
	  PP_X86_SRC_IMM, 0, false, (uint64_t)-0x10, 7, NONE, 1, 0, 0 },
	{ "lock orb $0x4,(%rdi)", R(0xf0, 0x80, 0x0f, 0x04), 4, PP_X86_OR, 1, true,
	  PP_X86_SRC_IMM, 0, false, 4, 7, NONE, 1, 0, 0 },
	{ "lock andb $0xfb,(%rdi)", R(0xf0, 0x80, 0x27, 0xfb), 4, PP_X86_AND, 1, true,
	  PP_X86_SRC_IMM, 0, false, (uint64_t)-5, 7, NONE, 1, 0, 0 },
	{ "xor %r8,0x8(%r9)", R(0x4d, 0x31, 0x41, 0x08), 4, PP_X86_XOR, 8, false,
	  PP_X86_SRC_REG, 8, false, 0, 9, NONE, 1, 8, 0 },
	{ "lock incl (%rdi)", R(0xf0, 0xff, 0x07), 3, PP_X86_INC, 4, true,
	  PP_X86_SRC_NONE, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "decq 0x10(%rax)", R(0x48, 0xff, 0x48, 0x10), 4, PP_X86_DEC, 8, false,
	  PP_X86_SRC_NONE, 0, false, 0, 0, NONE, 1, 0x10, 0 },
	{ "incb (%rax)", R(0xfe, 0x00), 2, PP_X86_INC, 1, false,
	  PP_X86_SRC_NONE, 0, false, 0, 0, NONE, 1, 0, 0 },
	{ "lock decw (%rdi)", R(0x66, 0xf0, 0xff, 0x0f), 4, PP_X86_DEC, 2, true,
	  PP_X86_SRC_NONE, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock incq %gs:0x20(%rip)", R(0x65, 0xf0, 0x48, 0xff, 0x05, 0x20, 0x00, 0x00, 0x00), 9,
	  PP_X86_INC, 8, true, PP_X86_SRC_NONE, 0, false, 0, RIP, NONE, 1, 0x20, 0x65 },
	{ "notq (%rdi)", R(0x48, 0xf7, 0x17), 3, PP_X86_NOT, 8, false,
	  PP_X86_SRC_NONE, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "negl (%rdi)", R(0xf7, 0x1f), 2, PP_X86_NEG, 4, false,
	  PP_X86_SRC_NONE, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "shlq (%rdi)", R(0x48, 0xd1, 0x27), 3, PP_X86_SHL, 8, false,
	  PP_X86_SRC_IMM, 0, false, 1, 7, NONE, 1, 0, 0 },
	{ "shrl $0x3,(%rdi)", R(0xc1, 0x2f, 0x03), 3, PP_X86_SHR, 4, false,
	  PP_X86_SRC_IMM, 0, false, 3, 7, NONE, 1, 0, 0 },
	{ "sarq %cl,(%rdi)", R(0x48, 0xd3, 0x3f), 3, PP_X86_SAR, 8, false,
	  PP_X86_SRC_CL, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "rolw $0x4,(%rdi)", R(0x66, 0xc1, 0x07, 0x04), 4, PP_X86_ROL, 2, false,
	  PP_X86_SRC_IMM, 0, false, 4, 7, NONE, 1, 0, 0 },
	{ "rorb %cl,(%rdi)", R(0xd2, 0x0f), 2, PP_X86_ROR, 1, false,
	  PP_X86_SRC_CL, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock bts %rax,(%rdi)", R(0xf0, 0x48, 0x0f, 0xab, 0x07), 5, PP_X86_BTS, 8, true,
	  PP_X86_SRC_REG, 0, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock btr %edx,0x8(%rdi)", R(0xf0, 0x0f, 0xb3, 0x57, 0x08), 5, PP_X86_BTR, 4, true,
	  PP_X86_SRC_REG, 2, false, 0, 7, NONE, 1, 8, 0 },
	{ "btc %rcx,(%rdi)", R(0x48, 0x0f, 0xbb, 0x0f), 4, PP_X86_BTC, 8, false,
	  PP_X86_SRC_REG, 1, false, 0, 7, NONE, 1, 0, 0 },
	{ "lock btsq $0x3,(%rdi)", R(0xf0, 0x48, 0x0f, 0xba, 0x2f, 0x03), 6, PP_X86_BTS, 8, true,
	  PP_X86_SRC_IMM, 0, false, 3, 7, NONE, 1, 0, 0 },
	{ "btrl $0x1f,(%rdi)", R(0x0f, 0xba, 0x37, 0x1f), 4, PP_X86_BTR, 4, false,
	  PP_X86_SRC_IMM, 0, false, 0x1f, 7, NONE, 1, 0, 0 },
	{ "btcq $0x40,(%rdi)", R(0x48, 0x0f, 0xba, 0x3f, 0x40), 5, PP_X86_BTC, 8, false,
	  PP_X86_SRC_IMM, 0, false, 0x40, 7, NONE, 1, 0, 0 },
};

static void test_x86__decode_writes(void)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(goods); i++) {
		const struct good *g = &goods[i];
		struct pp_x86_insn in;
		bool ok = pp_x86_decode(g->bytes, g->len, &in);

		CU_ASSERT_TRUE(ok);
		if (!ok) {
			fprintf(stderr, "\n  not decoded: %s\n", g->asm_);
			continue;
		}
		bool same = in.len == g->len && in.op == g->op && in.opsz == g->opsz &&
			    in.lock == g->lock && in.src == g->src && in.mem.base == g->base &&
			    in.mem.index == g->index && in.mem.scale == g->scale &&
			    in.mem.disp == g->disp && in.mem.seg == g->seg &&
			    (g->src != PP_X86_SRC_REG ||
			     (in.src_reg == g->src_reg && in.src_high8 == g->high8)) &&
			    (g->src != PP_X86_SRC_IMM || in.imm == g->imm);
		CU_ASSERT_TRUE(same);
		if (!same)
			fprintf(stderr, "\n  misdecoded: %s (len %u op %d opsz %u base %d disp %lld)\n",
				g->asm_, in.len, in.op, in.opsz, in.mem.base, (long long)in.mem.disp);
		/* one byte short is not an instruction */
		CU_ASSERT_FALSE(pp_x86_decode(g->bytes, g->len - 1u, &in));
	}
}

struct bad {
	const char *asm_;
	uint8_t bytes[PP_X86_MAX_LEN];
	uint8_t len;
};

static const struct bad bads[] = {
	{ "xchg %rax,(%rdi)", R(0x48, 0x87, 0x07), 3 },
	{ "lock xadd %rax,(%rdi)", R(0xf0, 0x48, 0x0f, 0xc1, 0x07), 5 },
	{ "mov (%rdi),%rax", R(0x48, 0x8b, 0x07), 3 },
	{ "add %rax,%rdx", R(0x48, 0x01, 0xc2), 3 },
	{ "adc %rax,(%rdi)", R(0x48, 0x11, 0x07), 3 },
	{ "cmpq $0x1,(%rdi)", R(0x48, 0x83, 0x3f, 0x01), 4 },
	{ "inc %rax", R(0x48, 0xff, 0xc0), 3 },
	{ "btq $0x3,(%rdi)", R(0x48, 0x0f, 0xba, 0x27, 0x03), 5 },
	{ "lock cmpxchg8b (%rdi)", R(0xf0, 0x0f, 0xc7, 0x0f), 4 },
	{ "nop", R(0x90), 1 },
	{ "rex.W data16 mov %eax,(%rdi): a REX before a prefix", R(0x48, 0x66, 0x89, 0x07), 4 },
	{ "rex.RXB mov %rax,(%rdi): two REX", R(0x47, 0x48, 0x89, 0x07), 4 },
};

static void test_x86__refuse_others(void)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(bads); i++) {
		struct pp_x86_insn in;
		bool ok = pp_x86_decode(bads[i].bytes, bads[i].len, &in);

		CU_ASSERT_FALSE(ok);
		if (ok)
			fprintf(stderr, "\n  decoded: %s\n", bads[i].asm_);
	}
	/* 13 prefixes and a 2-byte MOV: 15 bytes, the limit; one prefix more is too long */
	uint8_t many[16];
	struct pp_x86_insn in;

	memset(many, 0x66, sizeof(many));
	many[13] = 0x89;
	many[14] = 0x07;
	CU_ASSERT_TRUE(pp_x86_decode(many, 15, &in));
	CU_ASSERT_EQUAL(in.len, 15);
	many[13] = 0x66;
	many[14] = 0x89;
	many[15] = 0x07;
	CU_ASSERT_FALSE(pp_x86_decode(many, 16, &in));
}

/* REX.W wins over 0x66; with a REX, byte registers 4..7 are SPL BPL SIL DIL. */
static void test_x86__prefix_rules(void)
{
	static const uint8_t w_and_66[] = { 0x66, 0x48, 0x89, 0x07 };
	static const uint8_t rex_byte_reg[] = { 0x40, 0x88, 0x26 };	/* mov %spl,(%rsi) */
	struct pp_x86_insn in;

	CU_ASSERT_TRUE(pp_x86_decode(w_and_66, sizeof(w_and_66), &in));
	CU_ASSERT_EQUAL(in.opsz, 8);
	CU_ASSERT_TRUE(pp_x86_decode(rex_byte_reg, sizeof(rex_byte_reg), &in));
	CU_ASSERT_EQUAL(in.src_reg, 4);
	CU_ASSERT_FALSE(in.src_high8);
	CU_ASSERT_STRING_EQUAL(pp_x86_reg_name(in.src_reg, 1, in.src_high8), "%spl");
}

/*
 * mov 0x48(%rdi),%rax (48 8b 47 48) then mov %eax,(%rdi) (89 07): the bytes
 * before the IP after the store end in 48 89 07, which also reads as
 * mov %rax,(%rdi).  Both are found, longest first.
 */
static void test_x86__decode_ending(void)
{
	static const uint8_t code[] = { 0x48, 0x8b, 0x47, 0x48, 0x89, 0x07 };
	static const uint8_t lock_inc[] = {
		0x48, 0x8b, 0x07,			/* mov (%rdi),%rax */
		0x65, 0xf0, 0x48, 0xff, 0x05, 0x20, 0x00, 0x00, 0x00,	/* lock incq %gs:0x20(%rip) */
	};
	struct pp_x86_insn c[PP_X86_MAX_LEN];
	size_t n = pp_x86_decode_ending(code, sizeof(code), c, PP_ARRAY_SIZE(c));

	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(c[0].len, 3);
	CU_ASSERT_EQUAL(c[0].opsz, 8);
	CU_ASSERT_EQUAL(c[1].len, 2);
	CU_ASSERT_EQUAL(c[1].opsz, 4);
	n = pp_x86_decode_ending(lock_inc, sizeof(lock_inc), c, PP_ARRAY_SIZE(c));
	CU_ASSERT_TRUE_FATAL(n >= 1);
	CU_ASSERT_EQUAL(c[0].len, 9);
	CU_ASSERT_EQUAL(c[0].op, PP_X86_INC);
	CU_ASSERT_EQUAL(c[0].mem.seg, 0x65);
	/* the last 15 bytes only are looked at */
	uint8_t big[40] = { 0 };

	memcpy(big + sizeof(big) - 3, (const uint8_t[]){ 0x48, 0x89, 0x07 }, 3);
	n = pp_x86_decode_ending(big, sizeof(big), c, PP_ARRAY_SIZE(c));
	CU_ASSERT_EQUAL(n, 2);
}

static struct pp_x86_insn insn(enum pp_x86_op op, unsigned opsz, enum pp_x86_src src)
{
	struct pp_x86_insn in;

	memset(&in, 0, sizeof(in));
	in.op = op;
	in.opsz = (uint8_t)opsz;
	in.src = src;
	return in;
}

static void test_x86__apply(void)
{
	struct pp_x86_insn in;

	in = insn(PP_X86_ADD, 4, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0xffffffffull, 1), 0);
	in = insn(PP_X86_SUB, 8, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 5, (uint64_t)-0x80), 0x85);
	in = insn(PP_X86_AND, 1, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0xff, (uint64_t)-5), 0xfb);
	in = insn(PP_X86_OR, 2, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x1200, 0xabcd0034), 0x1234);
	in = insn(PP_X86_XOR, 8, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0xff00, 0x0ff0), 0xf0f0);
	in = insn(PP_X86_INC, 1, PP_X86_SRC_NONE);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0xff, 0), 0);
	in = insn(PP_X86_DEC, 2, PP_X86_SRC_NONE);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0, 0), 0xffff);
	in = insn(PP_X86_NOT, 4, PP_X86_SRC_NONE);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x0f0f0f0f, 0), 0xf0f0f0f0);
	in = insn(PP_X86_NEG, 8, PP_X86_SRC_NONE);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 1, 0), ~0ull);
	/* shifts: counts masked to 5 bits (6 for 64-bit operands) */
	in = insn(PP_X86_SHL, 1, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x81, 1), 0x02);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x81, 9), 0);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x81, 33), 0x02);
	in = insn(PP_X86_SHR, 4, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x80000000, 31), 1);
	in = insn(PP_X86_SAR, 2, PP_X86_SRC_CL);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x8000, 4), 0xf800);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x8000, 20), 0xffff);
	in = insn(PP_X86_SAR, 8, PP_X86_SRC_CL);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x8000000000000000ull, 63), ~0ull);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x4000000000000000ull, 64), 0x4000000000000000ull);
	/* rotates: modulo the operand's bits after the mask */
	in = insn(PP_X86_ROL, 1, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x81, 1), 0x03);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x81, 9), 0x03);
	in = insn(PP_X86_ROR, 2, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x0001, 4), 0x1000);
	in = insn(PP_X86_ROL, 8, PP_X86_SRC_CL);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x8000000000000001ull, 4), 0x18);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x1234, 0), 0x1234);
	/* bit tests: the bit number modulo the operand's bits */
	in = insn(PP_X86_BTS, 8, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0, 0x40), 1);
	in = insn(PP_X86_BTR, 4, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0xffffffff, 35), 0xfffffff7);
	in = insn(PP_X86_BTC, 2, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x0001, 15), 0x8001);
	/* MOV and CMPXCHG write the source */
	in = insn(PP_X86_MOV, 2, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_apply(&in, 0x1111, 0xabcdef), 0xcdef);
	CU_ASSERT_FALSE(pp_x86_is_rmw(&in));
	in = insn(PP_X86_CMPXCHG, 8, PP_X86_SRC_REG);
	CU_ASSERT_FALSE(pp_x86_is_rmw(&in));
}

static void test_x86__flags_and_bt_disp(void)
{
	struct pp_x86_insn in;

	in = insn(PP_X86_DEC, 4, PP_X86_SRC_NONE);
	CU_ASSERT_TRUE(pp_x86_sets_zf(&in, 0));
	CU_ASSERT_TRUE(pp_x86_is_rmw(&in));
	in = insn(PP_X86_NOT, 4, PP_X86_SRC_NONE);
	CU_ASSERT_FALSE(pp_x86_sets_zf(&in, 0));
	in = insn(PP_X86_SHL, 4, PP_X86_SRC_CL);
	CU_ASSERT_TRUE(pp_x86_sets_zf(&in, 3));
	CU_ASSERT_FALSE(pp_x86_sets_zf(&in, 32));	/* masked to 0: flags unchanged */
	in = insn(PP_X86_ROL, 4, PP_X86_SRC_IMM);
	CU_ASSERT_FALSE(pp_x86_sets_zf(&in, 1));
	in = insn(PP_X86_BTS, 8, PP_X86_SRC_REG);
	CU_ASSERT_FALSE(pp_x86_sets_zf(&in, 0));
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 63), 0);
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 64), 8);
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 200), 24);
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, (uint64_t)-1), -8);
	in = insn(PP_X86_BTR, 4, PP_X86_SRC_REG);
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 0x100000020ull), 4);	/* the register is 32-bit */
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 0xffffffffull), -4);
	in = insn(PP_X86_BTC, 2, PP_X86_SRC_IMM);
	CU_ASSERT_EQUAL(pp_x86_bt_disp(&in, 200), 0);
}

static void test_x86__names(void)
{
	char buf[64];
	struct pp_x86_insn in;

	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0xf0, 0x48, 0x83, 0x07, 0x01 }, 5, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "lock addq $0x1");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0xf0, 0x80, 0x27, 0xfb }, 4, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "lock andb $0xfb");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0x45, 0x89, 0x6d, 0x00 }, 4, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "movl %r13d");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0x88, 0x26 }, 2, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "movb %ah");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0x48, 0xd3, 0x3f }, 3, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "sarq %cl");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0x48, 0xf7, 0x17 }, 3, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "notq");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0x48, 0x0f, 0xba, 0x3f, 0x40 }, 5, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "btcq $0x40");
	CU_ASSERT_TRUE(pp_x86_decode((const uint8_t[]){ 0xf0, 0x48, 0x0f, 0xb1, 0x17 }, 5, &in));
	CU_ASSERT_STRING_EQUAL(pp_x86_insn_str(&in, buf, sizeof(buf)), "lock cmpxchgq %rdx");
	/* perf_regs numbering: AX BX CX DX SI DI BP SP IP ... R8 = 16 */
	CU_ASSERT_EQUAL(pp_x86_perf_reg(0), 0);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(1), 2);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(3), 1);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(4), 7);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(7), 5);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(9), 17);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(PP_X86_REG_RIP), 8);
	CU_ASSERT_EQUAL(pp_x86_perf_reg(PP_X86_REG_NONE), -1);
}

void test_x86__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_x86__decode_writes,
			"MOV CMPXCHG ALU INC DEC NOT NEG shifts BTx to memory decode as objdump reads them"),
		PP_TEST(test_x86__refuse_others,
			"XCHG XADD, loads, register destinations, ADC CMP BT, misplaced REX, 16 bytes are refused"),
		PP_TEST(test_x86__prefix_rules,
			"REX.W beats 0x66, a REX makes SPL BPL SIL DIL"),
		PP_TEST(test_x86__decode_ending,
			"the instructions ending at an address are found, longest first"),
		PP_TEST(test_x86__apply, "new values of read-modify-write operations"),
		PP_TEST(test_x86__flags_and_bt_disp,
			"which operations set ZF from the result; BTx register offsets"),
		PP_TEST(test_x86__names, "AT&T mnemonics and perf register numbers"),
	};
	pp_suite_add("x86", tests, PP_ARRAY_SIZE(tests));
}
