/* SPDX-License-Identifier: MIT */
/*
 * expr-gen.c - code generation for the expression compiler: emission, C type rules, operators.
 *
 * Values on the stack are normalized to their C type, so the usual arithmetic
 * conversions need code only for signed int -> unsigned int (a ZEXT).  The
 * left operand's conversion is only known after the right operand is parsed;
 * the parser leaves a NOP "hole" after the left operand that is patched here,
 * and pp_expr_finish() removes unused holes and remaps jump targets.
 * The small accessors of struct pp_expr live here too.
 * Not here: parsing (expr-parse.c), execution (expr-vm.c).
 */
#include <string.h>

#include "common/err.h"
#include "common/expr-internal.h"
#include "common/log.h"

static int op_effect(int op, int nargs)
{
	switch (op) {
	case OP_IMM: case OP_STR: case OP_LDRAW: case OP_ADDR: case OP_LOC: case OP_LOCOFF:
	case OP_LOCLEN: case OP_VAR: case OP_CPU: case OP_PID: case OP_TID: case OP_TIME:
		return 1;
	case OP_NOP: case OP_IDX: case OP_IDXLOC: case OP_LD: case OP_NEG: case OP_NOT:
	case OP_BNOT: case OP_BOOL: case OP_MULI: case OP_SEXT: case OP_ZEXT: case OP_JMP:
	case OP_CPUS: case OP_IDXADDR: case OP_LOCADDR: case OP_INC:
		return 0;
	case OP_CALL:
		return 1 - nargs;
	default:	/* binary operators, conditional jumps, POP, ST, RET */
		return -1;
	}
}

static uint32_t emit_full(struct expr_parser *p, int op, uint32_t a, int64_t imm, int size,
			  bool sign, int nargs)
{
	struct pp_expr *e = p->e;
	struct expr_insn *in;

	if (e->nr_code >= EXPR_MAX_CODE)
		pp_expr_fail(p, PP_ERANGE, p->at, "expression too large");
	if (e->nr_code == e->alloc_code) {
		e->alloc_code = e->alloc_code ? e->alloc_code * 2 : 32;
		e->code = pp_xrealloc(e->code, e->alloc_code * sizeof(*e->code));
		e->code_pos = pp_xrealloc(e->code_pos, e->alloc_code * sizeof(*e->code_pos));
	}
	in = &e->code[e->nr_code];
	memset(in, 0, sizeof(*in));
	in->op = (uint8_t)op;
	in->a = a;
	in->imm = imm;
	in->size = (uint8_t)size;
	in->sign = sign;
	in->nargs = (uint8_t)nargs;
	e->code_pos[e->nr_code] = p->at;
	p->sp += op_effect(op, nargs);
	if (p->sp > (int)e->max_stack)
		e->max_stack = (unsigned)p->sp;
	if (p->sp > EXPR_STACK)
		pp_expr_fail(p, PP_ERANGE, p->at, "expression too complex");
	return e->nr_code++;
}

uint32_t pp_expr_emit(struct expr_parser *p, int op, uint32_t a, int64_t imm)
{
	return emit_full(p, op, a, imm, 0, false, op == OP_CALL ? (int)imm : 0);
}

uint32_t pp_expr_emit_load(struct expr_parser *p, int op, uint32_t a, int size, bool sign)
{
	return emit_full(p, op, a, 0, size, sign, 0);
}

uint32_t pp_expr_pool_add(struct expr_parser *p, const void *data, uint32_t n)
{
	struct pp_expr *e = p->e;
	uint32_t off = e->pool_sz;

	if (n > EXPR_MAX_POOL - e->pool_sz)
		pp_expr_fail(p, PP_ERANGE, p->at, "too many string constants");
	if (e->pool_sz + n > e->pool_alloc) {
		uint32_t na = e->pool_alloc ? e->pool_alloc : 64;

		while (na < e->pool_sz + n)
			na *= 2;
		e->pool = pp_xrealloc(e->pool, na);
		e->pool_alloc = na;
	}
	memcpy(e->pool + off, data, n);
	e->pool_sz += n;
	return off;
}

int pp_expr_type_size(struct expr_type t)
{
	static const int sizes[] = { [B_VOID] = 1, [B_CHAR] = 1, [B_SHORT] = 2, [B_INT] = 4,
				     [B_LONG] = 8, [B_DOUBLE] = 8 };

	return t.ptr ? 8 : sizes[t.base];
}

struct expr_type pp_expr_promote(struct expr_type t)
{
	if (!t.ptr && t.base != B_VOID && t.base < B_INT)
		return expr_type_make(B_INT, false, 0);
	return t;
}

bool pp_expr_is_str(struct expr_type t)
{
	return t.ptr == 1 && t.base == B_CHAR;
}

bool pp_expr_is_ptr(const struct expr_val *v)
{
	return v->t.ptr > 0;
}

bool pp_expr_is_double(struct expr_type t)
{
	return !t.ptr && t.base == B_DOUBLE;
}

static bool is_signed(struct expr_type t)
{
	return !t.uns && !t.ptr;
}

/* The usual arithmetic conversions of two promoted types: a double wins (the highest rank). */
struct expr_type pp_expr_usual(struct expr_type a, struct expr_type b)
{
	if (a.base == b.base)
		return expr_type_make(a.base, a.uns || b.uns, 0);
	if (a.base < b.base) {
		struct expr_type t = a;

		a = b;
		b = t;
	}
	/* a has the higher rank: long holds every unsigned int, so no mixed case. */
	return a;
}

/* The one instruction converting a normalized @from value to @to, if any. */
static bool conv_op(struct expr_type from, struct expr_type to, int *op, int *size, bool *sign)
{
	int fs = pp_expr_type_size(from), ts = pp_expr_type_size(to);

	*sign = false;
	if (pp_expr_is_double(to) && !pp_expr_is_double(from)) {
		*op = from.uns || from.ptr ? OP_U2D : OP_I2D;
		*size = 8;
		return true;
	}
	if (pp_expr_is_double(from) && !pp_expr_is_double(to) && !to.ptr && to.base != B_VOID) {
		*op = OP_D2I;
		*size = ts;
		*sign = !to.uns;
		return true;
	}
	if (to.ptr || to.base == B_VOID || ts == 8)
		return false;	/* 64-bit targets: normalized values are already right */
	if (!from.ptr && from.base == to.base && from.uns == to.uns)
		return false;
	if (!from.ptr && from.base != B_VOID && fs < ts && (from.uns || !to.uns))
		return false;	/* widening that keeps the value */
	*op = to.uns ? OP_ZEXT : OP_SEXT;
	*size = ts;
	return true;
}

void pp_expr_convert(struct expr_parser *p, struct expr_type from, struct expr_type to)
{
	int op, size;
	bool sign;

	if (conv_op(from, to, &op, &size, &sign))
		pp_expr_emit_load(p, op, 0, size, sign);
}

void pp_expr_patch_ext(struct expr_parser *p, uint32_t hole, struct expr_type from,
		    struct expr_type to)
{
	struct expr_insn *in = &p->e->code[hole];
	int op, size;
	bool sign;

	if (in->op == OP_NOP && conv_op(from, to, &op, &size, &sign)) {
		in->op = (uint8_t)op;
		in->size = (uint8_t)size;
		in->sign = sign;
	}
}

void pp_expr_normalize(struct expr_parser *p, struct expr_type t)
{
	if (!t.ptr && t.base != B_VOID && t.base < B_LONG)
		pp_expr_emit_load(p, t.uns ? OP_ZEXT : OP_SEXT, 0, pp_expr_type_size(t), false);
}

static const char *tok_text(int tok)
{
	static const char *const names[] = {
		[TK_SHL - TK_EOF] = "<<", [TK_SHR - TK_EOF] = ">>", [TK_LE - TK_EOF] = "<=",
		[TK_GE - TK_EOF] = ">=", [TK_EQ - TK_EOF] = "==", [TK_NE - TK_EOF] = "!=",
	};
	static const char singles[] = "+-*/%&|^<>~";
	const char *c;

	if (tok >= TK_EOF && tok - TK_EOF < (int)PP_ARRAY_SIZE(names) && names[tok - TK_EOF])
		return names[tok - TK_EOF];
	c = tok < 256 ? strchr(singles, tok) : NULL;
	if (c) {
		static const char *const one[] = { "+", "-", "*", "/", "%", "&", "|", "^",
						   "<", ">", "~" };
		return one[c - singles];
	}
	return "?";
}

static bool is_void(const struct expr_val *v)
{
	return !v->t.ptr && v->t.base == B_VOID;
}

static int pointee_size(struct expr_type t)
{
	t.ptr--;
	return t.ptr ? 8 : (t.base == B_VOID ? 1 : pp_expr_type_size(t));
}

static void bad_operands(struct expr_parser *p, int tok, int pos)
{
	pp_expr_fail(p, PP_ETYPE, pos, "invalid operands to '%s'", tok_text(tok));
}

static void set_result(struct expr_val *l, struct expr_type t)
{
	l->t = t;
	l->arr_size = 0;
	l->field = NULL;
	l->lv = LV_NONE;
	l->is_bool = false;
}

/* Pointer +/- integer, integer + pointer, pointer - pointer. */
static void gen_ptr_arith(struct expr_parser *p, int tok, int pos, struct expr_val *l,
			  const struct expr_val *r, uint32_t hole)
{
	bool lp = pp_expr_is_ptr(l), rp = pp_expr_is_ptr(r);
	struct expr_type pt = lp ? l->t : r->t;
	int scale = pointee_size(pt);
	struct expr_insn *h = &p->e->code[hole];

	if ((lp && rp && tok == '+') || (!lp && tok == '-') || is_void(l) || is_void(r))
		bad_operands(p, tok, pos);
	if (lp && rp) {
		pp_expr_emit(p, OP_SUB, 0, 0);
		if (scale != 1) {
			pp_expr_emit(p, OP_IMM, 0, scale);
			pp_expr_emit(p, OP_DIV, 0, 0);
		}
		set_result(l, expr_type_make(B_LONG, false, 0));
		return;
	}
	if (scale != 1) {
		if (rp) {
			h->op = OP_MULI;
			h->imm = scale;
		} else {
			pp_expr_emit(p, OP_MULI, 0, scale);
		}
	}
	pp_expr_emit(p, tok == '+' ? OP_ADD : OP_SUB, 0, 0);
	set_result(l, pt);
}

static int cmp_op(int tok, bool uns)
{
	switch (tok) {
	case '<': return uns ? OP_LTU : OP_LT;
	case TK_LE: return uns ? OP_LEU : OP_LE;
	case '>': return uns ? OP_GTU : OP_GT;
	case TK_GE: return uns ? OP_GEU : OP_GE;
	case TK_EQ: return OP_EQ;
	default: return OP_NE;
	}
}

static int fcmp_op(int tok)
{
	switch (tok) {
	case '<': return OP_FLT;
	case TK_LE: return OP_FLE;
	case '>': return OP_FGT;
	case TK_GE: return OP_FGE;
	case TK_EQ: return OP_FEQ;
	default: return OP_FNE;
	}
}

/* l OP r of doubles (one side maybe an integer, converted): + - * / and comparisons. */
static void gen_double(struct expr_parser *p, int tok, int pos, struct expr_val *l,
		       const struct expr_val *r, uint32_t hole)
{
	struct expr_type t = expr_type_make(B_DOUBLE, false, 0);
	int op;

	switch (tok) {
	case '+': case '-': case '*': case '/':
	case '<': case '>': case TK_LE: case TK_GE: case TK_EQ: case TK_NE:
		break;
	default:
		pp_expr_fail(p, PP_ETYPE, pos, "'%s' needs integers, not a double", tok_text(tok));
	}
	if (pp_expr_is_ptr(l) || pp_expr_is_ptr(r))
		pp_expr_fail(p, PP_ETYPE, pos, "'%s' of a pointer and a double", tok_text(tok));
	pp_expr_patch_ext(p, hole, pp_expr_promote(l->t), t);
	pp_expr_convert(p, pp_expr_promote(r->t), t);
	switch (tok) {
	case '+': op = OP_FADD; break;
	case '-': op = OP_FSUB; break;
	case '*': op = OP_FMUL; break;
	case '/': op = OP_FDIV; break;
	default:
		pp_expr_emit(p, fcmp_op(tok), 0, 0);
		set_result(l, expr_type_make(B_INT, false, 0));
		l->is_bool = true;
		return;
	}
	pp_expr_emit(p, op, 0, 0);
	set_result(l, t);
}

void pp_expr_gen_binop(struct expr_parser *p, int tok, int pos, struct expr_val *l,
		    const struct expr_val *r, uint32_t hole)
{
	bool lp = pp_expr_is_ptr(l), rp = pp_expr_is_ptr(r);
	struct expr_type t;
	int op;

	p->at = pos;
	if (is_void(l) || is_void(r))
		pp_expr_fail(p, PP_ETYPE, pos, "void value used with '%s'", tok_text(tok));
	if (pp_expr_is_double(l->t) || pp_expr_is_double(r->t)) {
		gen_double(p, tok, pos, l, r, hole);
		return;
	}
	switch (tok) {
	case '~':
		if (!pp_expr_is_str(l->t) || !pp_expr_is_str(r->t))
			pp_expr_fail(p, PP_ETYPE, pos, "'~' needs a string on both sides");
		pp_expr_emit(p, OP_GLOB, 0, 0);
		set_result(l, expr_type_make(B_INT, false, 0));
		l->is_bool = true;
		return;
	case TK_EQ: case TK_NE: case '<': case TK_LE: case '>': case TK_GE:
		if ((tok == TK_EQ || tok == TK_NE) && pp_expr_is_str(l->t) && pp_expr_is_str(r->t)) {
			op = tok == TK_EQ ? OP_STREQ : OP_STRNE;
		} else if (lp || rp) {
			op = cmp_op(tok, true);
		} else {
			t = pp_expr_usual(pp_expr_promote(l->t), pp_expr_promote(r->t));
			pp_expr_patch_ext(p, hole, pp_expr_promote(l->t), t);
			pp_expr_convert(p, pp_expr_promote(r->t), t);
			op = cmp_op(tok, t.uns);
		}
		pp_expr_emit(p, op, 0, 0);
		set_result(l, expr_type_make(B_INT, false, 0));
		l->is_bool = true;
		return;
	case '+': case '-':
		if (lp || rp) {
			gen_ptr_arith(p, tok, pos, l, r, hole);
			return;
		}
		break;
	case TK_SHL: case TK_SHR:
		if (lp || rp)
			bad_operands(p, tok, pos);
		t = pp_expr_promote(l->t);
		pp_expr_emit(p, tok == TK_SHL ? OP_SHL : t.uns ? OP_SHRU : OP_SHR, 0, 0);
		if (tok == TK_SHL)
			pp_expr_normalize(p, t);
		set_result(l, t);
		return;
	default:
		if (lp || rp)
			bad_operands(p, tok, pos);
		break;
	}

	t = pp_expr_usual(pp_expr_promote(l->t), pp_expr_promote(r->t));
	pp_expr_patch_ext(p, hole, pp_expr_promote(l->t), t);
	pp_expr_convert(p, pp_expr_promote(r->t), t);
	switch (tok) {
	case '+': op = OP_ADD; break;
	case '-': op = OP_SUB; break;
	case '*': op = OP_MUL; break;
	case '/': op = t.uns ? OP_DIVU : OP_DIV; break;
	case '%': op = t.uns ? OP_MODU : OP_MOD; break;
	case '&': op = OP_AND; break;
	case '|': op = OP_OR; break;
	default: op = OP_XOR; break;
	}
	pp_expr_emit(p, op, 0, 0);
	if (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV)
		pp_expr_normalize(p, t);
	set_result(l, t);
}

/*
 * Replace code[start..] (constants and operators only) with one IMM.  No jump
 * can point inside: jump targets are set once an operand is complete.
 */
void pp_expr_fold(struct expr_parser *p, struct expr_val *v, uint32_t start)
{
	struct pp_expr *e = p->e;
	int64_t val;
	int at = p->at;

	if (!pp_expr_const_eval(e->code + start, e->nr_code - start, &val))
		return;
	p->at = e->code_pos[start];
	e->nr_code = start;
	p->sp--;	/* what the range left on the stack */
	pp_expr_emit(p, OP_IMM, 0, val);
	e->code[e->nr_code - 1].nargs = pp_expr_is_double(v->t);	/* the listing shows it so */
	p->at = at;
	v->is_const = true;
	v->start = start;
}

/*
 * Turn lvalue @v into its address on the stack: its load becomes the address
 * instruction of the same kind, and the casts' conversions after it go.
 */
void pp_expr_lvalue_addr(struct expr_parser *p, const struct expr_val *v)
{
	struct pp_expr *e = p->e;
	struct expr_insn *in = &e->code[v->lv_at];

	for (uint32_t i = v->lv_at + 1; i < e->nr_code; i++)	/* no stack effect */
		PP_BUG_ON(e->code[i].op != OP_SEXT && e->code[i].op != OP_ZEXT);
	e->nr_code = v->lv_at + 1;
	switch (v->lv) {
	case LV_RAW:
		PP_BUG_ON(in->op != OP_LDRAW);
		in->op = OP_ADDR;
		in->size = in->sign = 0;
		break;
	case LV_MEM:
		PP_BUG_ON(in->op != OP_LD);
		e->nr_code--;	/* the address is already there */
		break;
	case LV_IDX:
		PP_BUG_ON(in->op != OP_IDX);
		in->op = OP_IDXADDR;
		break;
	default:
		PP_BUG_ON(v->lv != LV_IDXLOC || in->op != OP_IDXLOC);
		in->op = OP_LOCADDR;
		break;
	}
}

/*
 * l = r, l's address already on the stack: the value stored is r converted
 * to l's type, and so is the value of the assignment.  Through casts,
 * (T)x = r stores (T)r into x and gives (T)x.
 */
struct expr_val pp_expr_gen_assign(struct expr_parser *p, const struct expr_val *l,
				   const struct expr_val *r)
{
	struct expr_val v = { .t = l->t };
	struct expr_type s = l->lv_t;

	if (l->lv_cast || pp_expr_is_double(r->t))
		pp_expr_convert(p, r->t, l->lv_cast ? l->t : s);
	emit_full(p, OP_ST, 0, 0, pp_expr_type_size(s), is_signed(s), 0);
	if (l->lv_cast)
		pp_expr_convert(p, s, l->t);
	p->e->flags |= PP_EXPR_USES_ASSIGN;
	return v;
}

/*
 * ++v, --v, v++, v--: one OP_INC on v's address.  Pointers step by the size
 * of what they point to.  Through casts the value is computed in the cast's
 * type and stored back converted to v's.
 */
struct expr_val pp_expr_gen_incdec(struct expr_parser *p, const struct expr_val *v, int tok,
				   bool post)
{
	struct expr_val r = { .t = v->t };
	struct expr_type t = v->t, s = v->lv_t;
	int64_t step = t.ptr ? pointee_size(t) : 1;

	pp_expr_lvalue_addr(p, v);
	emit_full(p, OP_INC, (is_signed(t) ? INC_SIGNED : 0) | (post ? INC_POST : 0),
		  tok == TK_INC ? step : -step, pp_expr_type_size(s), is_signed(s),
		  pp_expr_type_size(t));
	p->e->flags |= PP_EXPR_USES_ASSIGN;
	return r;
}

static bool is_jump(int op)
{
	return op == OP_JMP || op == OP_JZ || op == OP_JZK || op == OP_JNZK;
}

void pp_expr_finish(struct expr_parser *p)
{
	struct pp_expr *e = p->e;
	uint32_t *map, n = 0;

	pp_expr_emit(p, OP_RET, 0, 0);
	/* Drop the holes that stayed NOPs; a jump to a NOP goes to what follows it. */
	map = pp_xmalloc((e->nr_code + 1) * sizeof(*map));
	for (uint32_t i = 0; i < e->nr_code; i++) {
		map[i] = n;
		if (e->code[i].op != OP_NOP)
			n++;
	}
	map[e->nr_code] = n;
	n = 0;
	for (uint32_t i = 0; i < e->nr_code; i++) {
		struct expr_insn in = e->code[i];

		if (in.op == OP_NOP)
			continue;
		if (is_jump(in.op))
			in.a = map[in.a];
		e->code_pos[n] = e->code_pos[i];
		e->code[n++] = in;
	}
	e->nr_code = n;
	free(map);
}

void pp_expr_free(struct pp_expr *e)
{
	if (!e)
		return;
	free(e->code);
	free(e->code_pos);
	free(e->pool);
	free(e->text);
	free(e);
}

const struct pp_field *pp_field_find(const struct pp_field *fields, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (fields[i].name && !strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

bool pp_expr_is_string(const struct pp_expr *e)
{
	return pp_expr_is_str(e->type);
}

unsigned pp_expr_flags(const struct pp_expr *e)
{
	return e->flags;
}
