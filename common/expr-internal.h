/* SPDX-License-Identifier: MIT */
/*
 * expr-internal.h - the expression compiler's private types: tokens, types, opcodes, programs.
 *
 * The program is an array of fixed-size instructions for a stack machine
 * whose maximum depth is known after compiling.  Every value on the stack is
 * kept normalized to its static C type (sign- or zero-extended to 64 bits),
 * which is why widening conversions cost nothing and only int <-> unsigned
 * int and narrowing casts emit code.
 * Not here: the public API (expr.h).
 */
#ifndef PP_COMMON_EXPR_INTERNAL_H
#define PP_COMMON_EXPR_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/expr.h"

#define EXPR_MAX_TEXT (64 * 1024)	/* longest source text */
#define EXPR_MAX_CODE (64 * 1024)	/* most instructions */
#define EXPR_MAX_POOL (256 * 1024)	/* most bytes of string constants */
#define EXPR_MAX_DEPTH 100		/* deepest nesting of the source */
#define EXPR_STACK 256			/* deepest evaluation stack */
#define EXPR_MAX_ARGS 7			/* printf(fmt, 6 args) */
#define EXPR_EXT_SLOTS 16		/* strings from callbacks alive at once */
#define EXPR_STR_FIELDS 16		/* string fields whose extent bounds strings */
#define EXPR_COPY_MAX (64 * 1024)	/* bytes of the record copy a program that assigns runs on */

/* Tokens: single characters stand for themselves. */
enum expr_tok {
	TK_EOF = 256,
	TK_NUM, TK_STR, TK_ID,
	TK_INC, TK_DEC, TK_SHL, TK_SHR, TK_LE, TK_GE, TK_EQ, TK_NE, TK_LAND, TK_LOR,
	TK_ARROW, TK_ASSIGN_OP,	/* += -= ...: recognized only to refuse them (perf-prof has none) */
};

enum expr_base { B_VOID, B_CHAR, B_SHORT, B_INT, B_LONG, B_DOUBLE };	/* B_DOUBLE: PP_EXPR_DOUBLE */

/* A C type: base, signedness, pointer depth. */
struct expr_type {
	uint8_t base;
	bool uns;
	uint8_t ptr;
};

enum expr_op {
	OP_NOP,
	OP_IMM,		/* push imm */
	OP_STR,		/* push pool + a */
	OP_LDRAW,	/* push the field at raw + a (size, sign) */
	OP_ADDR,	/* push raw + a */
	OP_LOC,		/* push the data of __data_loc at a, or 0 */
	OP_LOCOFF,	/* push its offset */
	OP_LOCLEN,	/* push its length */
	OP_IDX,		/* pop i; push element i of the array at a, imm elements */
	OP_IDXLOC,	/* pop i; push element i of the __data_loc array at a */
	OP_LD,		/* pop address; push the value there (size, sign) */
	OP_VAR,		/* push vars[a] */
	OP_CPU, OP_PID, OP_TID, OP_TIME,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_DIVU, OP_MOD, OP_MODU,
	OP_SHL, OP_SHR, OP_SHRU, OP_AND, OP_OR, OP_XOR,
	OP_EQ, OP_NE, OP_LT, OP_LTU, OP_LE, OP_LEU, OP_GT, OP_GTU, OP_GE, OP_GEU,
	OP_STREQ, OP_STRNE, OP_GLOB,
	OP_NEG, OP_NOT, OP_BNOT, OP_BOOL,
	OP_MULI,	/* top *= imm (pointer scaling) */
	OP_SEXT,	/* sign-extend from size bytes */
	OP_ZEXT,	/* zero-extend from size bytes */
	OP_JMP,		/* goto a */
	OP_JZ,		/* pop; goto a if 0 */
	OP_JZK,		/* if top == 0 goto a (keep it) else pop */
	OP_JNZK,	/* if top != 0 goto a (keep it) else pop */
	OP_POP,
	OP_CPUS,	/* pop x; push bit x of the bitmap at pool + a (imm bits) */
	OP_IDXADDR,	/* pop i; push the address of OP_IDX's element i, or 0 */
	OP_LOCADDR,	/* pop i; push the address of OP_IDXLOC's element i, or 0 */
	OP_ST,		/* pop v, address; store v (size); push v normalized (size, sign) */
	OP_INC,		/* pop address; add imm to the value there (size, sign) seen as
			 * nargs bytes (a & INC_SIGNED), store, push new value or old (a & INC_POST) */
	OP_CALL,	/* a = builtin, nargs arguments */
	/* doubles (PP_EXPR_DOUBLE): a double on the stack is its bits, -0.0 made +0.0 */
	OP_FADD, OP_FSUB, OP_FMUL, OP_FDIV, OP_FNEG,
	OP_FEQ, OP_FNE, OP_FLT, OP_FLE, OP_FGT, OP_FGE,
	OP_FBOOL,	/* top != 0.0 (NaN is true, as in C) */
	OP_I2D,		/* signed integer -> double */
	OP_U2D,		/* unsigned integer -> double */
	OP_D2I,		/* double -> integer of size bytes (sign), truncated, NaN 0, clamped */
	OP_RET,
	OP__COUNT
};

enum expr_builtin {
	FN_PRINTF, FN_KSYMBOL, FN_NTOHL, FN_NTOHS, FN_STRNCMP, FN_COMM_GET,
	FN_SYSCALL_NAME, FN_EXIT_REASON_STR, FN_SYSTEM, FN__COUNT
};

enum { INC_SIGNED = 1, INC_POST = 2 };

struct expr_insn {
	uint8_t op;
	uint8_t size;		/* bytes for loads and extensions */
	uint8_t sign;		/* loads: sign-extend */
	uint8_t nargs;		/* OP_CALL */
	uint32_t a;		/* offset, pool offset, jump target, variable, builtin */
	int64_t imm;
};

/* A string field of the record: strings that start inside it end with it. */
struct expr_str_field {
	uint32_t off;		/* of the array, or of the __data_loc word */
	uint32_t size;		/* of the array; 0 for __data_loc */
};

struct pp_expr {
	struct expr_insn *code;
	uint32_t nr_code, alloc_code;
	int32_t *code_pos;	/* source offset of each instruction (dump) */
	char *pool;		/* string constants and CPUS bitmaps */
	uint32_t pool_sz, pool_alloc;
	struct expr_type type;	/* of the result */
	unsigned flags;		/* enum pp_expr_use */
	unsigned max_stack;
	char *text;		/* the source (dump) */
	/* The string fields used (beyond EXPR_STR_FIELDS, the record bounds them). */
	struct expr_str_field str_fields[EXPR_STR_FIELDS];
	unsigned nr_str_fields;
};

/*
 * An operand while compiling: its type and how it was produced.  An lvalue
 * (what '=', '++' and '--' may change) is loaded by code[lv_at]; only the
 * conversions of casts (perf-prof's "cast as lvalue") may follow that load.
 */
struct expr_val {
	struct expr_type t;
	uint32_t arr_size;	/* sizeof for arrays and string literals, else 0 */
	const struct pp_field *field;	/* a whole array field, as the last insn */
	int8_t lv;		/* enum expr_lvalue */
	bool lv_cast;		/* an lvalue seen through casts: assignable, not addressable */
	bool is_bool;		/* the value is 0 or 1 on every path */
	bool is_const;		/* computed by code[start..] from constants alone */
	uint32_t start;
	uint32_t lv_at;		/* lvalues: the load */
	struct expr_type lv_t;	/* lvalues: the type stored (t, but for casts) */
};

/* How an lvalue is loaded: LDRAW, LD (address on the stack), IDX, IDXLOC. */
enum expr_lvalue { LV_NONE, LV_RAW, LV_MEM, LV_IDX, LV_IDXLOC };

struct expr_parser {
	const char *src;
	int len;
	int cur;		/* lexer position */
	/* the current token */
	int tok;
	int tok_pos;
	int tok_end;
	int64_t num;
	struct expr_type num_type;
	char *str;		/* TK_STR contents, str_len bytes (may hold NULs) */
	uint32_t str_len, str_alloc;
	struct pp_buf lit;	/* adjacent literals being joined */

	const struct pp_expr_env *env;
	struct pp_expr *e;
	int at;			/* source offset recorded with emitted code */
	int sp;			/* simulated stack depth */
	int depth;		/* source nesting */
	jmp_buf fail;
	int ret;
	struct pp_parse_error *err;
};

/* expr-lex.c */
void pp_expr_lex_next(struct expr_parser *p);
int pp_expr_lex_peek_word(struct expr_parser *p, int *b, int *e);
void pp_expr_lex_take_word(struct expr_parser *p, int b, int e, int resume);
bool pp_expr_type_word_find(const struct expr_parser *p);
struct expr_type pp_expr_parse_type(struct expr_parser *p);
bool pp_expr_paren_starts_type(struct expr_parser *p);
bool pp_expr_tok_is(const struct expr_parser *p, const char *word);
void pp_expr_fail(struct expr_parser *p, int code, int pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

/* expr-gen.c */
uint32_t pp_expr_emit(struct expr_parser *p, int op, uint32_t a, int64_t imm);
uint32_t pp_expr_emit_load(struct expr_parser *p, int op, uint32_t a, int size, bool sign);
void pp_expr_patch_ext(struct expr_parser *p, uint32_t hole, struct expr_type from,
		    struct expr_type to);
void pp_expr_convert(struct expr_parser *p, struct expr_type from, struct expr_type to);
void pp_expr_normalize(struct expr_parser *p, struct expr_type t);
uint32_t pp_expr_pool_add(struct expr_parser *p, const void *data, uint32_t n);
void pp_expr_gen_binop(struct expr_parser *p, int tok, int pos, struct expr_val *l,
		    const struct expr_val *r, uint32_t hole);
void pp_expr_fold(struct expr_parser *p, struct expr_val *v, uint32_t start);
void pp_expr_lvalue_addr(struct expr_parser *p, const struct expr_val *v);
struct expr_val pp_expr_gen_assign(struct expr_parser *p, const struct expr_val *l,
				   const struct expr_val *r);
struct expr_val pp_expr_gen_incdec(struct expr_parser *p, const struct expr_val *v, int tok,
				   bool post);
void pp_expr_finish(struct expr_parser *p);
int pp_expr_type_size(struct expr_type t);
struct expr_type pp_expr_promote(struct expr_type t);
struct expr_type pp_expr_usual(struct expr_type a, struct expr_type b);
bool pp_expr_is_str(struct expr_type t);
bool pp_expr_is_ptr(const struct expr_val *v);
bool pp_expr_is_double(struct expr_type t);

/* expr-vm.c */
bool pp_expr_const_eval(const struct expr_insn *code, uint32_t n, int64_t *out);

/* expr-dump.c */
const char *pp_expr_op_name(int op);
const char *pp_expr_builtin_name(int fn);
void pp_expr_insn_print(const struct pp_expr *e, uint32_t i, struct pp_buf *out);

static inline struct expr_type expr_type_make(int base, bool uns, int ptr)
{
	struct expr_type t = { (uint8_t)base, uns, (uint8_t)ptr };

	return t;
}

#endif
